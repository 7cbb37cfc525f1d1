import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { apiKeys } from "./api-keys.ts";
import { applications, installations } from "./applications.ts";
import { id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { users } from "./people.ts";

export const webhooks = pgTable(
  "webhooks",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    // The key that registered it; its read scopes at that moment bound what the webhook sees.
    createdByKeyId: uuid().references(() => apiKeys.id, { onDelete: "set null" }),
    // The person who registered it in the settings area (then createdByKeyId is null).
    createdByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    // The application's installation that registered it: it stops when the application is uninstalled.
    createdByInstallationId: uuid().references(() => installations.id, { onDelete: "cascade" }),
    // That installation's application: whose writes excludeOwn leaves out.
    createdByApplicationId: uuid().references(() => applications.id, { onDelete: "cascade" }),
    scopes: text().array().notNull(),
    url: text().notNull(),
    description: text(),
    // Event name patterns ("task.*", "project.updated"); empty means every visible event.
    events: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    // Only this project's events and those of the records under it (domain/event-filter.ts). No
    // foreign key: a deleted project must not widen the filter (set null) nor be blocked by it; the
    // webhook receives its project.deleted and nothing more.
    projectId: uuid(),
    // Leave out the changes made by the key or the person that registered it (a two-way sync's echo).
    excludeOwn: boolean().notNull().default(false),
    // Event N+1 is not sent before N is delivered or finally given up (one request at a time).
    ordered: boolean().notNull().default(false),
    enabled: boolean().notNull().default(true),
    // The organisation's changeVersion when the webhook was registered or last turned on: it receives
    // the events after it. The room decides who receives an event when it fans the event out, which
    // may come after a later change of the webhook (a sweep after an outage, an alarm's delay), so a
    // webhook would otherwise receive events committed before it existed or while it was off.
    receivesAfter: bigint({ mode: "number" }).notNull().default(0),
    // Why deliveries stopped (the receiver answered 410 Gone), shown on the webhook.
    disabledReason: text(),
    // The Standard Webhooks signing secret, whsec_...: needed in clear to sign, shown once.
    secret: text().notNull(),
    // The secret before the last rotation: deliveries are signed with both until it expires.
    previousSecret: text(),
    previousSecretExpiresAt: timestamp({ withTimezone: true, precision: 3 }),
    // The highest changeVersion delivered successfully, kept by the statement that records attempts.
    lastDeliveredChangeVersion: bigint({ mode: "number" }),
    version: version(),
    ...timestamps,
  },
  (t) => [
    // GET /v1/webhooks, keyset-paged.
    index("webhooks_org_created_idx").on(t.orgId, t.createdAt, t.id),
    check("webhooks_url_length", sql`char_length(${t.url}) between 8 and 2048`),
  ],
);
