import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import type { EventActor } from "../../domain/events.ts";
import { organisations } from "./organisations.ts";

/** The project an event belongs to (domain/event-filter.ts projectOf, in SQL), over the events table's own columns. */
export const PROJECT_OF_EVENT = sql`case when type like 'project.%' then data->>'id' else data->>'projectId' end`;

// The transactional outbox: one row per successful write, committed with the change itself.
export const events = pgTable(
  "events",
  {
    id: uuid().primaryKey(),
    orgId: uuid()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    changeVersion: bigint({ mode: "number" }).notNull(),
    type: text().notNull(),
    // The read scope a key needs to see this event (task -> tasks.read, ...).
    scope: text().notNull(),
    data: jsonb().notNull(),
    changes: jsonb(),
    // Who made the change (domain/events.ts EventActor); null for opsroom itself, answered as the system actor.
    actor: jsonb().$type<EventActor>(),
    // The POST /v1/batch this event was committed by; every event of one batch carries the same id.
    batchId: uuid(),
    occurredAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    // Set when the realtime room acknowledged the event; null rows are re-published by the sweep.
    publishedAt: timestamp({ withTimezone: true, precision: 3 }),
    // Set when its notifications were derived (docs/notifications.md); null ones the sweep derives.
    notifiedAt: timestamp({ withTimezone: true, precision: 3 }),
  },
  (t) => [
    // changeVersion totally orders an organisation's events; also serves GET /v1/events?after=N.
    unique("events_org_change_version_key").on(t.orgId, t.changeVersion),
    // The publish sweep reads only what is still unacknowledged.
    index("events_unpublished_idx")
      .on(t.occurredAt)
      .where(sql`${t.publishedAt} is null`),
    // The sweep's notifications step reads only what is still to derive.
    index("events_unnotified_idx")
      .on(t.occurredAt)
      .where(sql`${t.notifiedAt} is null`),
    // GET /v1/<resource>/{id}/history and the feed's recordId filter: one record's events in order.
    index("events_record_idx").on(t.orgId, sql`(${t.data}->>'id')`, t.changeVersion),
    // The feed's projectId filter: a project's own events and those of the records under it.
    index("events_project_idx").on(t.orgId, sql`(${PROJECT_OF_EVENT})`, t.changeVersion),
  ],
);
