import { z } from "@hono/zod-openapi";
import { taskPriorities, taskStatuses } from "../../db/schema/tasks.ts";
import { DateString, Description, Name, Uuid, commaList, pageQuery, recordFields } from "./common.ts";

export type TaskStatus = (typeof taskStatuses)[number];

/** The task workflow (SPEC "Resources"): from each status, the statuses a PATCH may move to. */
export const TASK_TRANSITIONS: Record<TaskStatus, readonly TaskStatus[]> = {
  todo: ["in_progress", "cancelled"],
  in_progress: ["todo", "blocked", "done", "cancelled"],
  blocked: ["in_progress", "cancelled"],
  done: ["in_progress"],
  cancelled: ["todo"],
};

export const TaskSchema = z
  .object({
    ...recordFields,
    projectId: Uuid,
    assigneeId: Uuid,
    milestoneId: Uuid.nullable(),
    title: z.string().openapi({ example: "Book the removal van" }),
    description: z.string().nullable(),
    status: z.enum(taskStatuses),
    priority: z.enum(taskPriorities),
    dueDate: DateString,
  })
  .openapi("Task");

export const CreateTaskSchema = z
  .strictObject({
    title: Name.openapi({ example: "Book the removal van" }),
    projectId: Uuid,
    assigneeId: Uuid.openapi({ description: "An active person of the organisation." }),
    dueDate: DateString,
    priority: z.enum(taskPriorities).optional().openapi({ description: "Defaults to medium.", example: "high" }),
    status: z.enum(taskStatuses).optional().openapi({ description: "Defaults to todo." }),
    description: Description.optional(),
    milestoneId: Uuid.nullable().optional().openapi({ description: "A milestone of the same project." }),
  })
  .openapi("CreateTask");

export const UpdateTaskSchema = z
  .strictObject({
    title: Name.optional(),
    assigneeId: Uuid.optional(),
    dueDate: DateString.optional(),
    priority: z.enum(taskPriorities).optional(),
    status: z.enum(taskStatuses).optional().openapi({ description: "Moves along the workflow; other moves are 409." }),
    description: Description.optional(),
    milestoneId: Uuid.nullable().optional(),
  })
  .openapi("UpdateTask");

export const ListTasksQuery = z.strictObject({
  ...pageQuery,
  projectId: Uuid.optional(),
  assigneeId: Uuid.optional(),
  milestoneId: Uuid.optional(),
  status: commaList(taskStatuses).optional(),
  priority: commaList(taskPriorities).optional(),
  dueBefore: DateString.optional().openapi({ description: "Tasks due strictly before this date." }),
  dueAfter: DateString.optional().openapi({ description: "Tasks due strictly after this date." }),
  updatedSince: z.iso.datetime({ offset: true }).optional().openapi({ description: "Tasks changed at or after this instant (ISO 8601)." }),
});

export type CreateTaskInput = z.infer<typeof CreateTaskSchema>;
export type UpdateTaskInput = z.infer<typeof UpdateTaskSchema>;
export type ListTasksFilters = z.infer<typeof ListTasksQuery>;
