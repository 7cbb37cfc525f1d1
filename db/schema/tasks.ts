import { sql } from "drizzle-orm";
import { check, date, foreignKey, index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { milestones } from "./milestones.ts";
import { organisations } from "./organisations.ts";
import { personnel } from "./personnel.ts";
import { projects } from "./projects.ts";
import { TASK_PRIORITIES, TASK_STATUSES } from "../../domain/records.ts";

export const tasks = pgTable(
  "tasks",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    projectId: uuid().notNull(),
    assigneeId: uuid().notNull(),
    milestoneId: uuid(),
    title: text().notNull(),
    description: text(),
    status: text({ enum: TASK_STATUSES }).notNull().default("todo"),
    priority: text({ enum: TASK_PRIORITIES }).notNull().default("medium"),
    dueDate: date({ mode: "string" }).notNull(),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("tasks", t),
    // References stay inside the organisation, enforced by the database as well as by the API.
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id], name: "tasks_project_fk" }),
    foreignKey({ columns: [t.orgId, t.assigneeId], foreignColumns: [personnel.orgId, personnel.id], name: "tasks_assignee_fk" }),
    // MATCH SIMPLE: checked only when milestone_id is set; the milestone must belong to the task's project.
    foreignKey({
      columns: [t.orgId, t.projectId, t.milestoneId],
      foreignColumns: [milestones.orgId, milestones.projectId, milestones.id],
      name: "tasks_milestone_fk",
    }),
    // The default list order (keyset pagination on created_at, id).
    index("tasks_org_created_idx").on(t.orgId, t.createdAt, t.id),
    // Filters that narrow a large organisation: by project, by assignee, by milestone.
    index("tasks_org_project_created_idx").on(t.orgId, t.projectId, t.createdAt, t.id),
    index("tasks_org_assignee_created_idx").on(t.orgId, t.assigneeId, t.createdAt, t.id),
    index("tasks_org_milestone_idx").on(t.orgId, t.milestoneId).where(sql`${t.milestoneId} is not null`),
    // `updatedSince` (an integrator's "what changed since my last sync"): without it the list reads
    // every task of the organisation to find the few changed ones (see README "Performance").
    index("tasks_org_updated_idx").on(t.orgId, t.updatedAt),
    check("tasks_title_length", sql`char_length(${t.title}) between 1 and 200`),
    check("tasks_status_valid", sql`${t.status} in ('todo','in_progress','blocked','done','cancelled')`),
    check("tasks_priority_valid", sql`${t.priority} in ('low','medium','high','urgent')`),
  ],
);
