import type { Actor } from "../../domain/actor.ts";
import { MAX_CHECKLIST_ITEMS_PER_TASK } from "../../domain/limits.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { checklistItems, tasks } from "../schema/index.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import { projectOfTask, taskHasRoom, taskOfOrganisation } from "./engine/references.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./engine/resource.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";

// A task's checklist: items listed and added under the task, reached by their own id otherwise.
// An item takes its task's project from the task; a task's delete takes its items with it.

export const checklistItemResource = defineResource(RESOURCES.checklistItem, checklistItems, { parent: tasks });
export type ChecklistItemRecord = RecordOf<typeof checklistItemResource>;
/** What a client changes: the title, done, the externalId; the task (and its project) is the item's for good. */
export type ChecklistItemValues = Omit<FieldsOf<typeof checklistItemResource>, "taskId" | "projectId">;
export type NewChecklistItem = ChecklistItemValues & Pick<ChecklistItemRecord, "taskId" | "title">;

/** `taskChecklistItems`: the task holds fewer than MAX_CHECKLIST_ITEMS_PER_TASK items (references.ts taskHasRoom). */
const hasRoom = (taskId: string) => taskHasRoom("taskChecklistItems", checklistItems, taskId, MAX_CHECKLIST_ITEMS_PER_TASK);
const withProject = (values: NewChecklistItem) => ({ ...values, projectId: projectOfTask(values.taskId) });

export function createChecklistItem(db: Database, actor: Actor, values: NewChecklistItem, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, checklistItemResource, {
    values: withProject(values),
    references: [hasRoom(values.taskId)],
    idempotency,
    fresh: true,
  });
}

export function updateChecklistItem(db: Database, actor: Actor, id: string, patch: ChecklistItemValues, ifMatch: number | null) {
  return updateRecord(db, actor, checklistItemResource, { id, patch, ifMatch, references: [], rules: [] });
}

/** PUT by external id: the body names the task (a new item is added to it; an existing one must be on it). */
export function upsertChecklistItem(db: Database, actor: Actor, externalId: string, values: NewChecklistItem, ifMatch: number | null) {
  const { taskId, ...patch } = values;
  return upsertRecord(db, actor, checklistItemResource, {
    externalId,
    values: withProject(values),
    patch,
    fixed: ["taskId"],
    ifMatch,
    create: { references: [taskOfOrganisation(taskId), hasRoom(taskId)] },
    update: { references: [], rules: [] },
    fresh: true,
  });
}

export function deleteChecklistItem(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, checklistItemResource, { id, ifMatch, blockers: [] });
}
