import { sql } from "drizzle-orm";
import { check, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";

// Labels of the organisation, set on tasks (tasks.label_ids).
export const labels = pgTable(
  "labels",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    colour: text().notNull(),
    description: text(),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("labels", t),
    // One label per name in an organisation, whatever the letter case.
    uniqueIndex("labels_org_name_key").on(t.orgId, sql`lower(${t.name})`),
    // Keyset pagination in list order.
    index("labels_org_created_idx").on(t.orgId, t.createdAt, t.id),
    check("labels_name_length", sql`char_length(${t.name}) between 1 and 100`),
    check("labels_colour_valid", sql`${t.colour} ~ '^#[0-9a-fA-F]{6}$'`),
  ],
);
