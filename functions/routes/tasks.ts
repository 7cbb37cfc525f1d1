import { pageRequest } from "../../db/queries/paging.ts";
import { createTask, deleteTask, getTask, listTasks, updateTask } from "../../db/queries/tasks.ts";
import { listEnvelope, recordEnvelope, sendList, sendRecord, sendWrite } from "../envelope.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { CreateTaskSchema, ListTasksQuery, TaskSchema, UpdateTaskSchema } from "../schemas/tasks.ts";
import { notFound } from "../../db/queries/outcomes.ts";

const tag = "Tasks";

export const taskRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/tasks",
    operationId: "listTasks",
    scope: "tasks.read",
    tag,
    summary: "List tasks, filtered and paged",
    query: ListTasksQuery,
    response: { schema: listEnvelope(TaskSchema), description: "A page of tasks in creation order." },
    async handler(c, { query }) {
      const { limit, cursor, ...filters } = query;
      const page = await listTasks(c.var.db, c.var.actor, pageRequest({ limit, cursor }), filters);
      return sendList(c, page, ["task", "tasks"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/tasks",
    operationId: "createTask",
    scope: "tasks.manage",
    tag,
    summary: "Create a task (projectId, assigneeId, dueDate and title are required)",
    body: CreateTaskSchema,
    errors: ["invalid_reference"],
    response: { status: 201, schema: recordEnvelope(TaskSchema), description: "The saved task, with its id." },
    async handler(c, { body }) {
      return sendWrite(c, await createTask(c.var.db, c.var.actor, body, c.var.idempotency), "task created", 201);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/tasks/{id}",
    operationId: "getTask",
    scope: "tasks.read",
    tag,
    summary: "Fetch one task",
    params: IdParams,
    response: { schema: recordEnvelope(TaskSchema), description: "The task." },
    async handler(c, { params }) {
      const record = await getTask(c.var.db, c.var.actor, params.id);
      if (!record) throw notFound("task");
      return sendRecord(c, record, "task");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/tasks/{id}",
    operationId: "updateTask",
    scope: "tasks.manage",
    tag,
    summary: "Change a task; a status change must follow the workflow",
    description:
      "Any changeable field. Status moves: todo -> in_progress | cancelled; in_progress -> todo | blocked | done | cancelled; " +
      "blocked -> in_progress | cancelled; done -> in_progress; cancelled -> todo. Send If-Match with the ETag to refuse a stale write.",
    params: IdParams,
    body: UpdateTaskSchema,
    errors: ["invalid_reference", "invalid_transition", "conflict", "precondition_failed"],
    response: { schema: recordEnvelope(TaskSchema), description: "The changed task." },
    async handler(c, { params, body }) {
      const ifMatch = parseIfMatch(c.req.header("if-match"));
      const result = await updateTask(c.var.db, c.var.actor, params.id, body, ifMatch);
      return sendWrite(c, result, result.event ? "task updated" : "task unchanged");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/tasks/{id}",
    operationId: "deleteTask",
    scope: "tasks.manage",
    tag,
    summary: "Remove a task",
    params: IdParams,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(TaskSchema), description: "The task as it was before removal." },
    async handler(c, { params }) {
      return sendWrite(c, await deleteTask(c.var.db, c.var.actor, params.id, parseIfMatch(c.req.header("if-match"))), "task deleted");
    },
  }),
];
