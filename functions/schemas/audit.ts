import { z } from "@hono/zod-openapi";
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, type AuditEntry } from "../../domain/audit.ts";
import type { Assert, Equal } from "../../domain/type-equality.ts";
import { commaList, InstantQuery, Timestamp, Uuid } from "./common.ts";
import { ActorSchema } from "./events.ts";

// The audit log's entry and query (docs/audit-log.md), held to the kernel's AuditEntry.

const Hash = z.string().openapi({ description: "Hex SHA-256.", example: "9f2c..." });

export const AuditEntrySchema = z
  .object({
    id: Uuid,
    sequence: z.number().int().openapi({ description: "The entry's place in its organisation's chain: 1, 2, ... (newest is highest)." }),
    occurredAt: Timestamp.openapi({ description: "When the change was made (ISO 8601, UTC, microseconds)." }),
    actor: ActorSchema,
    action: z.enum(AUDIT_ACTIONS).openapi({ description: "What was done: <target type>.<what happened> (docs/audit-log.md lists each)." }),
    target: z
      .object({ type: z.enum(AUDIT_TARGET_TYPES), id: z.string(), name: z.string() })
      .openapi({ description: "What it was done to, with its name as it was then (kept after the target is gone)." }),
    changes: z
      .record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }))
      .nullable()
      .openapi({ description: "Each changed field's value before and after, where that makes sense; never a secret." }),
    clientAddress: z.string().nullable().openapi({ description: "The client's IP address, as Cloudflare saw it; null for the CLI." }),
    userAgent: z.string().nullable().openapi({ description: "The client's User-Agent (at most 512 characters)." }),
    requestId: z.string().nullable().openapi({ description: "The request's id (the X-Request-Id answer header), to find it in the logs." }),
    previousHash: Hash.openapi({ description: "The hash of the organisation's entry before this one (64 zeros for the first)." }),
    hash: Hash.openapi({
      description: "sha256(previousHash || sha256(the entry's canonical content)): `opsroom audit verify` checks the chain.",
    }),
  })
  .openapi("AuditEntry");
type _EntryAgrees = Assert<Equal<z.infer<typeof AuditEntrySchema>, AuditEntry>>;

/** The filters GET /v1/audit-log and its export share. */
export const AuditFilterQuery = {
  action: commaList(AUDIT_ACTIONS).optional(),
  actor: Uuid.optional().openapi({ description: "Only entries by this actor: a key's, a person's or an app's id." }),
  target: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: "Only entries whose target has this id (a key, member, webhook, ...)." }),
  since: InstantQuery.optional().openapi({ description: "Only entries at or after this instant." }),
  until: InstantQuery.optional().openapi({ description: "Only entries before this instant." }),
};
