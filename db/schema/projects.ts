import { sql } from "drizzle-orm";
import { check, date, index, numeric, pgTable, text, unique } from "drizzle-orm/pg-core";
import { PROJECT_STATUSES } from "../../domain/records.ts";
import { checkOneOf, externalId, externalIdConstraints, id, orgId, searchVector, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";

export const projects = pgTable(
  "projects",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    description: text(),
    // Exact decimal: money is never a float in storage.
    budget: numeric({ precision: 15, scale: 2 }).notNull(),
    startDate: date({ mode: "string" }).notNull(),
    endDate: date({ mode: "string" }).notNull(),
    status: text({ enum: PROJECT_STATUSES }).notNull().default("planned"),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("projects", t),
    // Target of the (org_id, project_id) foreign keys of milestones and tasks.
    unique("projects_org_id_id_key").on(t.orgId, t.id),
    // Keyset pagination in list order, and every ?sort= of a project list (domain/resources.ts, its `sortable`).
    index("projects_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("projects_org_name_idx").on(t.orgId, t.name, t.id),
    index("projects_org_start_idx").on(t.orgId, t.startDate, t.id),
    index("projects_org_end_idx").on(t.orgId, t.endDate, t.id),
    index("projects_org_updated_idx").on(t.orgId, t.updatedAt, t.id),
    // ?q=: full-text search over name and description.
    index("projects_search_idx")
      .using("gin", searchVector(sql`${t.name}`, sql`${t.description}`))
      .with({ fastupdate: false }),
    check("projects_budget_non_negative", sql`${t.budget} >= 0`),
    check("projects_dates_ordered", sql`${t.endDate} >= ${t.startDate}`),
    check("projects_name_length", sql`char_length(${t.name}) between 1 and 200`),
    checkOneOf("projects_status_valid", t.status, PROJECT_STATUSES),
  ],
);
