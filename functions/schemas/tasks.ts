import { z } from "@hono/zod-openapi";
import { MAX_TASK_DEPTH, TASK_PRIORITIES, TASK_STATUSES } from "../../domain/records.ts";
import type { TaskRecord } from "../../services/tasks.ts";
import { DateString, Description, Name, Uuid, publicRecord, externalIdFields, recordFields } from "./common.ts";

const ParentId = Uuid.nullable().openapi({
  description: `A task of the same project this one is a subtask of (at most ${MAX_TASK_DEPTH} levels), or null for none.`,
});

const LabelIds = z
  .array(Uuid)
  .max(50)
  .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, "names a label twice")
  .openapi({
    description: "Labels of the organisation (/v1/labels), at most 50, each once; replaces the task's labels.",
    uniqueItems: true,
  });

export const TaskSchema = publicRecord<TaskRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      projectId: Uuid,
      assigneeId: Uuid,
      milestoneId: Uuid.nullable(),
      title: z.string().openapi({ example: "Book the removal van" }),
      description: z.string().nullable(),
      status: z.enum(TASK_STATUSES),
      priority: z.enum(TASK_PRIORITIES),
      startDate: DateString.nullable().openapi({ description: "When work begins, or null; never after dueDate." }),
      dueDate: DateString,
      parentId: Uuid.nullable().openapi({ description: "The task this one is a subtask of (same project), or null." }),
      blockedBy: z.array(Uuid).openapi({
        description: "Tasks that must be done (or cancelled) before this one can be: POST and DELETE /v1/tasks/{id}/dependencies.",
      }),
      labelIds: z.array(Uuid).openapi({ description: "The task's labels (/v1/labels)." }),
      blocking: z
        .array(Uuid)
        .openapi({ description: "Tasks this one blocks (those whose blockedBy holds it). Derived: it moves with their changes." }),
      subtaskCount: z.number().int().openapi({ description: "Direct subtasks. Derived: it moves with their changes." }),
      subtasksDone: z.number().int().openapi({ description: "Direct subtasks that are done. Derived." }),
    })
    .openapi("Task"),
);

// The inputs take the record's own fields where they are the same (its ids, date and enums); the
// free text is validated (Name, Description). A change is a create's fields but projectId (a task
// stays with its project), each optional.
const { projectId, assigneeId, milestoneId, startDate, dueDate, status, priority } = TaskSchema.shape;

/** A task starts on or before its due date (each may be sent alone on a change: the statement checks the pair then). */
const datesOrdered = (t: { startDate?: string | null | undefined; dueDate?: string | undefined }) =>
  !t.startDate || !t.dueDate || t.startDate <= t.dueDate;
const DATES_RULE = { message: "startDate must not be after dueDate", path: ["startDate"] };

const taskFields = {
  title: Name.openapi({ example: "Book the removal van" }),
  projectId,
  assigneeId: assigneeId.openapi({ description: "An active person of the organisation." }),
  dueDate,
  startDate: startDate.optional(),
  priority: priority.optional(),
  status: status.optional(),
  description: Description.optional(),
  milestoneId: milestoneId.optional().openapi({ description: "A milestone of the same project." }),
  parentId: ParentId.optional(),
  labelIds: LabelIds.optional(),
};

const newTask = {
  ...taskFields,
  priority: priority.optional().openapi({ description: "Defaults to medium.", example: "high" }),
  status: status.optional().openapi({ description: "Defaults to todo." }),
};

export const CreateTaskSchema = z
  .strictObject({ ...externalIdFields.create, ...newTask })
  .refine(datesOrdered, DATES_RULE)
  .openapi("CreateTask");

/** PUT by external id: a create's body; the path gives the externalId. */
export const UpsertTaskSchema = z.strictObject(newTask).refine(datesOrdered, DATES_RULE).openapi("UpsertTask");

export const UpdateTaskSchema = z
  .strictObject({
    ...externalIdFields.update,
    ...taskFields,
    status: status.optional().openapi({ description: "Moves along the workflow; other moves are 409." }),
  })
  .omit({ projectId: true })
  .partial()
  .refine(datesOrdered, DATES_RULE)
  .openapi("UpdateTask");

/** POST /v1/tasks/{id}/dependencies. */
export const AddDependencySchema = z
  .strictObject({ blockedBy: Uuid.openapi({ description: "A task of the organisation (any project) this one must wait for." }) })
  .openapi("AddDependency");

export const DependencyParams = z.object({
  id: Uuid.openapi({ param: { name: "id", in: "path" }, description: "The task blocked." }),
  blockerId: Uuid.openapi({ param: { name: "blockerId", in: "path" }, description: "The task it is blocked by." }),
});

export type CreateTaskInput = z.infer<typeof CreateTaskSchema>;
export type UpdateTaskInput = z.infer<typeof UpdateTaskSchema>;
