import { z } from "@hono/zod-openapi";
import type { AuditEntry } from "../../domain/audit.ts";
import { exportAuditLog, listAuditLog, type AuditFilter } from "../../services/audit-log.ts";
import { serviceContext } from "../http/context.ts";
import { envelope } from "../http/envelope.ts";
import { nextLink } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { AuditEntrySchema, AuditFilterQuery } from "../schemas/audit.ts";
import { subrequestsLeft } from "../subrequests.ts";

// The audit log (docs/audit-log.md): owners and admins (their role holds audit.read) and keys
// given audit.read read it; nothing here or anywhere changes an entry.

const tag = "Audit log";
const who =
  "Needs `audit.read`: owners and admins hold it through their role; a key or app holds it only when it was given it (no other scope implies it). Members and keys without it get 403.";

const Cursor = z
  .string()
  .max(16)
  .regex(/^[1-9][0-9]{0,15}$/, "cursor is not a cursor this API returned")
  .optional()
  .openapi({ description: "The nextCursor of the previous page." });

const filterOf = (query: {
  action?: AuditEntry["action"][] | undefined;
  actor?: string | undefined;
  target?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}): AuditFilter => ({
  actions: query.action,
  actorId: query.actor,
  targetId: query.target,
  since: query.since,
  until: query.until,
});

/** Entries a page of the export holds (each page is one statement, also bounded by ANSWER_BYTES). */
const EXPORT_PAGE = 500;
/** Pages one export reads at most (with the Paid plan's 1,000 subrequests), and the subrequests it leaves for the rest of its call. */
const EXPORT_PAGES = 900;
const EXPORT_RESERVE = 10;

export const auditLogRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/audit-log",
    operationId: "listAuditLog",
    scope: "audit.read",
    tag,
    summary: "Who did what to the organisation's access and settings, from where: newest first",
    description: `${who} Entries are kept AUDIT_RETENTION_DAYS (default 365); none is ever changed or deleted otherwise.`,
    query: z.strictObject({
      ...AuditFilterQuery,
      limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: "Page size, 1 to 200." }),
      cursor: Cursor,
    }),
    response: {
      schema: envelope({ count: z.number().int(), data: z.array(AuditEntrySchema), nextCursor: z.string().nullable() }),
      description: "A page of entries, newest first.",
      headers: ["Link"],
    },
    verb: listAuditLog,
    async handler(c, { query }) {
      const before = query.cursor ? Number(query.cursor) : null;
      const page = await listAuditLog({ ctx: serviceContext(c), input: { filter: filterOf(query), before, limit: query.limit } });
      const last = page.entries.at(-1);
      const nextCursor = page.hasMore && last ? String(last.sequence) : null;
      const count = page.entries.length;
      return {
        body: {
          success: true as const,
          version: "v1" as const,
          message: `${count} ${count === 1 ? "entry" : "entries"}`,
          count,
          data: page.entries,
          nextCursor,
        },
        headers: nextLink(c.req.url, "cursor", nextCursor),
      };
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/audit-log/export",
    operationId: "exportAuditLog",
    scope: "audit.read",
    tag,
    summary: "Every entry the filters select, newest first, as NDJSON (one entry per line): for a SIEM",
    description: `${who} The answer is \`application/x-ndjson\`, streamed a page at a time; a refusal is an ordinary JSON error.`,
    query: z.strictObject({
      ...AuditFilterQuery,
      cursor: Cursor.openapi({ description: 'Where the previous export stopped: its `Link: rel="next"` header\'s cursor.' }),
    }),
    response: { schema: AuditEntrySchema, description: "One AuditEntry per line.", mediaType: "application/x-ndjson", headers: ["Link"] },
    verb: exportAuditLog,
    async handler(c, { query }) {
      // An export makes a statement a page: it takes no more pages than its invocation may make
      // subrequests (functions/subrequests.ts), and says before it answers where the rest starts.
      const pages = Math.max(2, Math.min(EXPORT_PAGES, subrequestsLeft() - EXPORT_RESERVE));
      const before = query.cursor ? Number(query.cursor) : null;
      // The first page is read now: a refusal (401, 403) answers before any line is sent.
      const { first, rest, next } = await exportAuditLog({
        ctx: serviceContext(c),
        input: { filter: filterOf(query), pageSize: EXPORT_PAGE, before, pages },
      });
      const encoder = new TextEncoder();
      const lines = (entries: AuditEntry[]) => encoder.encode(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          if (first.length) controller.enqueue(lines(first));
        },
        async pull(controller) {
          const page = await rest.next();
          if (page.done) controller.close();
          else if (page.value.length) controller.enqueue(lines(page.value));
        },
      });
      return { stream, headers: nextLink(c.req.url, "cursor", next === null ? null : String(next)) };
    },
  }),
];
