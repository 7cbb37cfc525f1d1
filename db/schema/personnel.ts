import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { users } from "./people.ts";

export const personnel = pgTable(
  "personnel",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    email: text().notNull(),
    role: text(),
    active: boolean().notNull().default(true),
    // The member (a user who signs in) this person is, if any: set by the settings area
    // (PUT /v1/settings/members/{userId}/personnel) and by an accepted invitation, cleared when the
    // member leaves. Never by a personnel write: the link is the member's, not the record's.
    userId: uuid().references(() => users.id, { onDelete: "set null" }),
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
    // A member is at most one person of an organisation (NULLs do not collide): ?assigneeId=me names one.
    uniqueIndex("personnel_org_user_key").on(t.orgId, t.userId),
    // Keyset pagination in list order.
    index("personnel_org_created_idx").on(t.orgId, t.createdAt, t.id),
    check("personnel_name_length", sql`char_length(${t.name}) between 1 and 200`),
    check("personnel_email_length", sql`char_length(${t.email}) between 3 and 320`),
  ],
);
