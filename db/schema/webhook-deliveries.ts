import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { DELIVERY_OUTCOMES } from "../../domain/records.ts";
import { checkOneOf, id, orgId } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { webhooks } from "./webhooks.ts";

// One row per delivery attempt, written by the realtime room (through the Worker) as it goes.
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    webhookId: uuid()
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: uuid().notNull(),
    eventType: text().notNull(),
    changeVersion: bigint({ mode: "number" }),
    attempt: integer().notNull(),
    outcome: text({ enum: DELIVERY_OUTCOMES }).notNull(),
    responseStatus: integer(),
    durationMs: integer(),
    error: text(),
    // The first few hundred characters of the receiver's answer; never more.
    responseExcerpt: text(),
    nextRetryAt: timestamp({ withTimezone: true, precision: 3 }),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    // GET /v1/webhooks/:id/deliveries, newest first.
    index("webhook_deliveries_webhook_created_idx").on(t.orgId, t.webhookId, t.createdAt, t.id),
    checkOneOf("webhook_deliveries_outcome_valid", t.outcome, DELIVERY_OUTCOMES),
    check("webhook_deliveries_attempt_positive", sql`${t.attempt} >= 1`),
  ],
);
