import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { SAVED_VIEW_RESOURCES } from "../../domain/saved-views.ts";
import { id, orgId, timestamps } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { users } from "./people.ts";

// Saved views (docs/people.md "Saved views"): a person's named list of one resource, kept as the
// query string the console puts in its URL (filters, sort, columns). Settings of a person, not
// records of the organisation: they move no changeVersion and emit no event.
export const savedViews = pgTable(
  "saved_views",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    // The person whose view it is: only they change or delete it.
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    resource: text({ enum: SAVED_VIEW_RESOURCES }).notNull(),
    query: text().notNull().default(""),
    // Shown to every member of the organisation (read-only to them), not only its owner.
    shared: boolean().notNull().default(false),
    ...timestamps,
  },
  (t) => [
    // A person's views are told apart by name, per resource.
    uniqueIndex("saved_views_owner_name_key").on(t.orgId, t.userId, t.resource, sql`lower(${t.name})`),
    // The list: a person's own views and those shared, in creation order.
    index("saved_views_org_created_idx").on(t.orgId, t.createdAt, t.id),
    check("saved_views_name_length", sql`char_length(${t.name}) between 1 and 100`),
    check("saved_views_query_length", sql`char_length(${t.query}) <= 2000`),
    // The collections' paths hold hyphens, which checkOneOf's plain words do not.
    check("saved_views_resource_valid", sql`${t.resource} in (${sql.raw(SAVED_VIEW_RESOURCES.map((path) => `'${path}'`).join(", "))})`),
  ],
);
