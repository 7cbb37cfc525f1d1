import { sql } from "drizzle-orm";
import { check, foreignKey, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import type { EventActor } from "../../domain/events.ts";
import { externalId, externalIdConstraints, id, orgId, timestamps, version } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { tasks } from "./tasks.ts";

// Comments on tasks. A comment keeps its task's project (a task never changes project), so the
// event filter ?projectId= finds comment events as it finds task events.
export const comments = pgTable(
  "comments",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    taskId: uuid().notNull(),
    projectId: uuid().notNull(),
    body: text().notNull(),
    // Who wrote it, as events name an actor: an API key or a person.
    author: jsonb().$type<EventActor>().notNull(),
    externalId: externalId(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    ...externalIdConstraints("comments", t),
    // The task is the comment's, in its organisation and project. No cascade: a task's delete
    // removes its comments itself, with an event each.
    foreignKey({
      columns: [t.orgId, t.projectId, t.taskId],
      foreignColumns: [tasks.orgId, tasks.projectId, tasks.id],
      name: "comments_task_fk",
    }),
    // A task's thread, oldest first (keyset pagination in list order).
    index("comments_task_created_idx").on(t.orgId, t.taskId, t.createdAt, t.id),
    check("comments_body_length", sql`char_length(${t.body}) between 1 and 10000`),
  ],
);
