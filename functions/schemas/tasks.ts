import { z } from "@hono/zod-openapi";
import { TASK_PRIORITIES, TASK_STATUSES } from "../../domain/records.ts";
import { DateString, Description, InstantQuery, Name, Uuid, commaList, pageQuery, publicRecord, externalIdFields, recordFields } from "./common.ts";
import type { TaskRecord } from "../../services/tasks.ts";

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
      dueDate: DateString,
    })
    .openapi("Task")
);

export const CreateTaskSchema = z
  .strictObject({
    ...externalIdFields.create,
    title: Name.openapi({ example: "Book the removal van" }),
    projectId: Uuid,
    assigneeId: Uuid.openapi({ description: "An active person of the organisation." }),
    dueDate: DateString,
    priority: z.enum(TASK_PRIORITIES).optional().openapi({ description: "Defaults to medium.", example: "high" }),
    status: z.enum(TASK_STATUSES).optional().openapi({ description: "Defaults to todo." }),
    description: Description.optional(),
    milestoneId: Uuid.nullable().optional().openapi({ description: "A milestone of the same project." }),
  })
  .openapi("CreateTask");

/** PUT by external id: a create's body; the path gives the externalId. */
export const UpsertTaskSchema = CreateTaskSchema.omit({ externalId: true }).openapi("UpsertTask");

export const UpdateTaskSchema = z
  .strictObject({
    ...externalIdFields.update,
    title: Name.optional(),
    assigneeId: Uuid.optional(),
    dueDate: DateString.optional(),
    priority: z.enum(TASK_PRIORITIES).optional(),
    status: z.enum(TASK_STATUSES).optional().openapi({ description: "Moves along the workflow; other moves are 409." }),
    description: Description.optional(),
    milestoneId: Uuid.nullable().optional(),
  })
  .openapi("UpdateTask");

export const ListTasksQuery = z.strictObject({
  ...pageQuery,
  ...externalIdFields.query,
  projectId: Uuid.optional().openapi({ description: "Only the tasks of this project." }),
  assigneeId: Uuid.optional().openapi({ description: "Only the tasks assigned to this person." }),
  milestoneId: Uuid.optional().openapi({ description: "Only the tasks of this milestone." }),
  status: commaList(TASK_STATUSES).optional(),
  priority: commaList(TASK_PRIORITIES).optional(),
  dueBefore: DateString.optional().openapi({ description: "Tasks due strictly before this date." }),
  dueAfter: DateString.optional().openapi({ description: "Tasks due strictly after this date." }),
  updatedSince: InstantQuery.optional().openapi({ description: "Tasks changed at or after this instant (ISO 8601)." }),
});

export type CreateTaskInput = z.infer<typeof CreateTaskSchema>;
export type UpdateTaskInput = z.infer<typeof UpdateTaskSchema>;
export type ListTasksFilters = z.infer<typeof ListTasksQuery>;
