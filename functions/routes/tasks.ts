import type { ServiceContext } from "../../services/context.ts";
import { addDependency, removeDependency, tasks } from "../../services/tasks.ts";
import { serviceContext } from "../http/context.ts";
import { recordEnvelope, writeReply } from "../http/envelope.ts";
import { parseIfMatch } from "../http/preconditions.ts";
import { defineRoute } from "../http/registry.ts";
import { IdParams } from "../schemas/common.ts";
import { TASK_EXPAND } from "../schemas/expansions.ts";
import {
  AddDependencySchema,
  CreateTaskSchema,
  DependencyParams,
  TaskSchema,
  UpdateTaskSchema,
  UpsertTaskSchema,
} from "../schemas/tasks.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

const CHECKS =
  "A task moves to done only when every task blocking it and every subtask (at any depth) is done or cancelled (409 open_blockers, open_subtasks); " +
  "a parentId that would make the task its own ancestor is 409 dependency_cycle, one nesting subtasks deeper than 5 levels 409 conflict.";

const taskResourceRoutes = resourceRoutes({
  schemas: { record: TaskSchema, create: CreateTaskSchema, update: UpdateTaskSchema, upsert: UpsertTaskSchema, expand: TASK_EXPAND },
  summaries: {
    list: "List tasks: filtered, searched, sorted and paged",
    create: "Create a task (projectId, assigneeId, dueDate and title are required)",
    get: "Fetch one task",
    update: "Change a task; a status change must follow the workflow",
    delete: "Remove a task that has no subtasks",
  },
  descriptions: {
    update:
      "Any changeable field. Status moves: todo -> in_progress | cancelled; in_progress -> todo | blocked | done | cancelled; " +
      `blocked -> in_progress | cancelled; done -> in_progress; cancelled -> todo. ${CHECKS} Send If-Match with the ETag to refuse a stale write.`,
    delete:
      "A task with subtasks is refused (409 conflict, dependants.subtasks). Its comments are removed with it (a comment.deleted event each), " +
      "and it leaves the blockedBy of the tasks it blocked (a task.updated event each), before its task.deleted event.",
  },
  errors: {
    create: ["invalid_reference"],
    update: ["invalid_reference", "invalid_transition", "dependency_cycle", "open_blockers", "open_subtasks"],
  },
  upsertFixed: "projectId",
  service: tasks,
  inputs: requestsAsIs,
});

const TaskReply = recordEnvelope(TaskSchema);

const dependencyAdded = (
  ctx: ServiceContext,
  { params, body }: { params: { id: string }; body: { blockedBy: string } },
  ifMatch: number | null,
) => addDependency({ ctx, input: { id: params.id, blockedBy: body.blockedBy, ifMatch } });
const dependencyRemoved = (ctx: ServiceContext, { params }: { params: { id: string; blockerId: string } }, ifMatch: number | null) =>
  removeDependency({ ctx, input: { id: params.id, blockerId: params.blockerId, ifMatch } });

/** A task's dependencies: "this task is blocked by that one", added and removed one at a time. */
const dependencyRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/tasks/{id}/dependencies",
    operationId: "addTaskDependency",
    scope: "tasks.manage",
    tag: "Tasks",
    summary: "Make a task wait for another (blockedBy)",
    description:
      "Adds blockedBy to the task's blockedBy: a task of the organisation, in any project. A dependency that would close a cycle is 409 dependency_cycle " +
      "with the cycle's path; one already there changes nothing (200, no event). The change is a task.updated event with changes.blockedBy. Send If-Match with the task's ETag to refuse a stale write.",
    params: IdParams,
    body: AddDependencySchema,
    errors: ["invalid_reference", "dependency_cycle", "conflict", "precondition_failed"],
    response: { schema: TaskReply, description: "The task, blocked by the task named.", headers: ["ETag"] },
    batch: { status: 200, creates: false, resource: tasks.resource, run: dependencyAdded },
    verb: addDependency,
    async handler(c, input) {
      const result = await dependencyAdded(serviceContext(c), input, parseIfMatch(c.req.header("if-match")));
      return writeReply(result, result.event ? "dependency added" : "dependency unchanged");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/tasks/{id}/dependencies/{blockerId}",
    operationId: "removeTaskDependency",
    scope: "tasks.manage",
    tag: "Tasks",
    summary: "Stop a task waiting for another",
    description:
      "Removes blockerId from the task's blockedBy (a task.updated event with changes.blockedBy); 404 when the task was not blocked by it.",
    params: DependencyParams,
    errors: ["precondition_failed"],
    response: { schema: TaskReply, description: "The task, no longer blocked by the task named.", headers: ["ETag"] },
    batch: { status: 200, creates: false, resource: tasks.resource, run: dependencyRemoved },
    verb: removeDependency,
    async handler(c, input) {
      return writeReply(await dependencyRemoved(serviceContext(c), input, parseIfMatch(c.req.header("if-match"))), "dependency removed");
    },
  }),
];

export const taskRoutes = [...taskResourceRoutes, ...dependencyRoutes];
