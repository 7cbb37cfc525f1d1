import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text, unique, uniqueIndex } from "drizzle-orm/pg-core";
import { externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";

export const personnel = pgTable(
  "personnel",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    email: text().notNull(),
    role: text(),
    active: boolean().notNull().default(true),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("personnel", t),
    // Target of the tasks (org_id, assignee_id) foreign key: an assignee is always in the task's organisation.
    unique("personnel_org_id_id_key").on(t.orgId, t.id),
    // One person per email in an organisation, whatever the letter case.
    uniqueIndex("personnel_org_email_key").on(t.orgId, sql`lower(${t.email})`),
    // Keyset pagination in list order.
    index("personnel_org_created_idx").on(t.orgId, t.createdAt, t.id),
    check("personnel_name_length", sql`char_length(${t.name}) between 1 and 200`),
    check("personnel_email_length", sql`char_length(${t.email}) between 3 and 320`),
  ],
);
