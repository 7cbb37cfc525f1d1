import { sql } from "drizzle-orm";
import { check, date, foreignKey, index, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { MILESTONE_STATUSES } from "../../domain/records.ts";
import { checkOneOf, externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { projects } from "./projects.ts";

export const milestones = pgTable(
  "milestones",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    projectId: uuid().notNull(),
    name: text().notNull(),
    description: text(),
    dueDate: date({ mode: "string" }).notNull(),
    status: text({ enum: MILESTONE_STATUSES }).notNull().default("open"),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("milestones", t),
    // The project must be in the milestone's organisation.
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id], name: "milestones_project_fk" }),
    // Target of the tasks (org_id, project_id, milestone_id) foreign key: a task's milestone is in the task's project.
    unique("milestones_org_project_id_key").on(t.orgId, t.projectId, t.id),
    // GET /v1/projects/:id/milestones, keyset-paged.
    index("milestones_project_created_idx").on(t.orgId, t.projectId, t.createdAt, t.id),
    check("milestones_name_length", sql`char_length(${t.name}) between 1 and 200`),
    checkOneOf("milestones_status_valid", t.status, MILESTONE_STATUSES),
  ],
);
