import { sql } from "drizzle-orm";
import { boolean, check, foreignKey, index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { tasks } from "./tasks.ts";

// A task's checklist: short items ticked off one by one, in the order they were added. An item
// keeps its task's project (a task never changes project), so the event filter ?projectId= finds
// its events as it finds the task's.
export const checklistItems = pgTable(
  "checklist_items",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    taskId: uuid().notNull(),
    projectId: uuid().notNull(),
    title: text().notNull(),
    done: boolean().notNull().default(false),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("checklist_items", t),
    // The task is the item's, in its organisation and project. No cascade: a task's delete removes
    // its items itself, with an event each.
    foreignKey({
      columns: [t.orgId, t.projectId, t.taskId],
      foreignColumns: [tasks.orgId, tasks.projectId, tasks.id],
      name: "checklist_items_task_fk",
    }),
    // A task's checklist in list order (keyset pagination), and the count of its items.
    index("checklist_items_task_created_idx").on(t.orgId, t.taskId, t.createdAt, t.id),
    check("checklist_items_title_length", sql`char_length(${t.title}) between 1 and 200`),
  ],
);
