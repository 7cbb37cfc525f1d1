import { tasks } from "../../services/tasks.ts";
import { CreateTaskSchema, UpsertTaskSchema, ListTasksQuery, TaskSchema, UpdateTaskSchema } from "../schemas/tasks.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

export const taskRoutes = resourceRoutes({
  tag: "Tasks",
  path: "/v1/tasks",
  noun: ["task", "tasks"],
  names: { list: "listTasks", create: "createTask", get: "getTask", update: "updateTask", delete: "deleteTask" },
  scopes: { read: "tasks.read", manage: "tasks.manage" },
  schemas: { record: TaskSchema, create: CreateTaskSchema, update: UpdateTaskSchema, list: ListTasksQuery, upsert: UpsertTaskSchema },
  summaries: {
    list: "List tasks, filtered and paged",
    create: "Create a task (projectId, assigneeId, dueDate and title are required)",
    get: "Fetch one task",
    update: "Change a task; a status change must follow the workflow",
    delete: "Remove a task",
  },
  descriptions: {
    update:
      "Any changeable field. Status moves: todo -> in_progress | cancelled; in_progress -> todo | blocked | done | cancelled; " +
      "blocked -> in_progress | cancelled; done -> in_progress; cancelled -> todo. Send If-Match with the ETag to refuse a stale write.",
  },
  errors: { create: ["invalid_reference"], update: ["invalid_reference", "invalid_transition"] },
  upsertFixed: "projectId",
  service: tasks,
  inputs: requestsAsIs,
});
