import { sql } from "drizzle-orm";
import { check, date, foreignKey, index, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { TASK_PRIORITIES, TASK_STATUSES } from "../../domain/records.ts";
import { checkOneOf, externalId, externalIdConstraints, id, orgId, rankOf, searchVector, timestamps, version } from "./columns.ts";
import { milestones } from "./milestones.ts";
import { organisations } from "./organisations.ts";
import { personnel } from "./personnel.ts";
import { projects } from "./projects.ts";

export const tasks = pgTable(
  "tasks",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    projectId: uuid().notNull(),
    assigneeId: uuid().notNull(),
    milestoneId: uuid(),
    // A task of the same project this one is a subtask of (at most MAX_TASK_DEPTH levels).
    parentId: uuid(),
    title: text().notNull(),
    description: text(),
    status: text({ enum: TASK_STATUSES }).notNull().default("todo"),
    priority: text({ enum: TASK_PRIORITIES }).notNull().default("medium"),
    // When work on the task begins, if planned (the timeline's bar starts there); never after dueDate.
    startDate: date({ mode: "string" }),
    dueDate: date({ mode: "string" }).notNull(),
    // Tasks of the organisation that must be done (or cancelled) before this one can be: the
    // dependency graph, kept acyclic by the statements that change it. An array, not a table:
    // the dependency is the task's own state, so adding one is a change of the task (its version,
    // its event with changes.blockedBy), and a delete removes the task from the others' arrays
    // with an event each.
    blockedBy: uuid()
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    // Labels of the organisation; deleting a label takes it off every task, with an event each.
    labelIds: uuid()
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
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
    // Target of the subtasks', comments' and checklist items' (org_id, project_id, ...) foreign keys.
    unique("tasks_org_project_id_key").on(t.orgId, t.projectId, t.id),
    // MATCH SIMPLE: checked only when parent_id is set; a subtask is in its parent's project. No
    // cascade: a task with subtasks is not deleted.
    foreignKey({ columns: [t.orgId, t.projectId, t.parentId], foreignColumns: [t.orgId, t.projectId, t.id], name: "tasks_parent_fk" }),
    // The default list order (keyset pagination on created_at, id).
    index("tasks_org_created_idx").on(t.orgId, t.createdAt, t.id),
    // Every ?sort= of a task list, in one key order each, read forward or backward (domain/resources.ts, its `sortable`).
    index("tasks_org_due_idx").on(t.orgId, t.dueDate, t.id),
    index("tasks_org_priority_idx").on(t.orgId, rankOf(TASK_PRIORITIES, sql`${t.priority}`), t.id),
    index("tasks_org_status_idx").on(t.orgId, rankOf(TASK_STATUSES, sql`${t.status}`), t.id),
    index("tasks_org_title_idx").on(t.orgId, t.title, t.id),
    // ?q=: full-text search over title and description.
    // The GIN indexes take each write at once (fastupdate off): with a pending list, every lookup
    // scans the rows written since the last vacuum, and a list of 50 tasks makes 50 lookups for
    // their `blocking` (3.7 ms each after a load of 100 k tasks, measured).
    index("tasks_search_idx")
      .using("gin", searchVector(sql`${t.title}`, sql`${t.description}`))
      .with({ fastupdate: false }),
    // ?labelId= and a label's delete; a task's `blocking` (the tasks whose blocked_by holds it).
    index("tasks_label_ids_idx").using("gin", t.labelIds).with({ fastupdate: false }),
    index("tasks_blocked_by_idx").using("gin", t.blockedBy).with({ fastupdate: false }),
    // ?parentId= in list order, and a task's subtaskCount and subtasksDone.
    index("tasks_org_parent_created_idx")
      .on(t.orgId, t.parentId, t.createdAt, t.id)
      .where(sql`${t.parentId} is not null`),
    // Filters that narrow a large organisation: by project, by assignee, by milestone.
    index("tasks_org_project_created_idx").on(t.orgId, t.projectId, t.createdAt, t.id),
    index("tasks_org_assignee_created_idx").on(t.orgId, t.assigneeId, t.createdAt, t.id),
    // A milestone's tasks, and its progress roll-up read from the index alone (status in it).
    index("tasks_org_milestone_idx")
      .on(t.orgId, t.milestoneId, t.status)
      .where(sql`${t.milestoneId} is not null`),
    // ?startBefore= and ?startAfter= (the timeline's window). Not a ?sort= key: startDate may be
    // null, and a keyset page cannot step past nulls with a row comparison.
    index("tasks_org_start_idx").on(t.orgId, t.startDate, t.id),
    // A project's progress roll-up, read from the index alone.
    index("tasks_org_project_status_idx").on(t.orgId, t.projectId, t.status),
    // `updatedSince` (an integrator's "what changed since my last sync") and ?sort=updatedAt:
    // without it the list reads every task of the organisation to find the few changed ones.
    index("tasks_org_updated_idx").on(t.orgId, t.updatedAt, t.id),
    check("tasks_title_length", sql`char_length(${t.title}) between 1 and 200`),
    check("tasks_dates_ordered", sql`${t.startDate} is null or ${t.startDate} <= ${t.dueDate}`),
    checkOneOf("tasks_status_valid", t.status, TASK_STATUSES),
    checkOneOf("tasks_priority_valid", t.priority, TASK_PRIORITIES),
  ],
);
