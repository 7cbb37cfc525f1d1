import { z } from "@hono/zod-openapi";
import type { EventFilter, OwnWrites } from "../../domain/event-filter.ts";
import { ACTOR_TYPES, EVENT_RESOURCES, isEventPattern, type EventActor, type OpsEvent } from "../../domain/events.ts";
import type { Assert, Equal } from "../../domain/type-equality.ts";
import { BooleanQuery, Timestamp, Uuid } from "./common.ts";

// The change feed's filter (domain/event-filter.ts) as request fields: the query of GET /v1/events,
// the same names as a socket's connection query, and a webhook's fields.

/** The kernel's EventActor (domain/events.ts) as the document describes it. */
export const ActorSchema = z
  .object({
    type: z.enum(ACTOR_TYPES),
    id: Uuid.nullable(),
    name: z.string(),
    onBehalfOf: z
      .object({ type: z.literal("user"), id: Uuid, name: z.string() })
      .optional()
      .openapi({ description: "For an application acting for a person (authorization code): that person. Absent when it acts as itself." }),
  })
  .openapi("Actor", {
    description:
      "Who made the change: an API key (its id and application name), a person signed in (their id and name), an OAuth application (its id and name, and the person it acts for), or opsroom itself (the CLI or the seed; id null).",
    example: { type: "key", id: "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10", name: "Warehouse sync" },
  });

/**
 * The fields every event has, whatever its type (domain/events.ts OpsEvent). The typed events,
 * one per type with its record as `data` and its fields' `changes`, are in event-types.ts.
 */
export const eventFields = {
  id: Uuid,
  orgId: Uuid,
  changeVersion: z.number().int().openapi({ description: "The organisation's changeVersion this change produced." }),
  occurredAt: Timestamp,
  actor: ActorSchema,
  batchId: Uuid.nullable().openapi({
    description: "The POST /v1/batch that committed this change (every event of one batch carries it); null for a single call.",
  }),
};
type _ActorAgrees = Assert<Equal<z.infer<typeof ActorSchema>, EventActor>>;
type _EventFieldsAgree = Assert<Equal<z.infer<z.ZodObject<typeof eventFields>>, Omit<OpsEvent, "type" | "data" | "changes">>>;

/** "task.updated", "task.*" or "*": an event name, a resource's events, or every event. */
export const EventPattern = z
  .string()
  .max(100)
  .refine(isEventPattern, `must be "*", "<resource>.*" or "<resource>.<action>" with resource one of ${EVENT_RESOURCES.join(", ")}`)
  .openapi({ example: "task.*" });

export const FeedFilterQuery = {
  types: z
    .string()
    .max(1000)
    .transform((list) => list.split(",").map((p) => p.trim()))
    .pipe(z.array(EventPattern).min(1).max(50))
    .optional()
    .openapi({
      type: "string",
      maxLength: 1000,
      description: 'Comma-separated event patterns ("task.*,project.updated"); default every event the key may see.',
      example: "task.*",
    }),
  projectId: Uuid.optional().openapi({
    description: "Only the project's own events and those of its milestones, tasks, risks, issues and financial entries.",
  }),
  recordId: Uuid.optional().openapi({ description: "Only the events of this record." }),
  excludeOwn: BooleanQuery.optional().openapi({
    type: "string",
    enum: ["true", "false"],
    description: "true: leave out the changes this key (or this person) made, so a two-way sync never sees its own echo.",
  }),
};

/** The filter a validated query asks for; own writes are the caller's, found by the statement. */
export function feedFilterOf(
  query: { types?: string[] | undefined; projectId?: string | undefined; recordId?: string | undefined; excludeOwn?: boolean | undefined },
  own: OwnWrites = {},
): EventFilter {
  return {
    types: query.types ?? [],
    projectId: query.projectId ?? null,
    recordId: query.recordId ?? null,
    excludeOwn: query.excludeOwn ? own : null,
  };
}

/** A record's history, paged: the cursor is the changeVersion of the last event of the page before. */
export const HistoryQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: "Page size, 1 to 200." }),
  cursor: z
    .string()
    .max(15)
    .regex(/^\d{1,15}$/, "must be the nextCursor of the page before")
    .optional()
    .openapi({ description: "The nextCursor of the page before." }),
});
