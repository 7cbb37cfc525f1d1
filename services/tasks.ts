import { RULES } from "../db/statements/engine/rules.ts";
import * as statements from "../db/statements/tasks.ts";
import { DomainError } from "../domain/errors.ts";
import { CASCADE_RECORDS, DEPENDENCY_CHECK_LINKS, MAX_BLOCKERS, MAX_BLOCKING, SUBTASK_CHECK_TASKS } from "../domain/limits.ts";
import { MAX_TASK_DEPTH, TASK_TRANSITIONS } from "../domain/records.ts";
import { guarded } from "./constraint-errors.ts";
import type { Call } from "./context.ts";
import { resourceService } from "./resource-service.ts";
import { publishAfterCommit } from "./rooms.ts";
import { settleUpdate } from "./settle.ts";

export type { NewTask, TaskFilters, TaskRecord, TaskValues } from "../db/statements/tasks.ts";

/** A check of the task's subtasks at every depth that could not finish within the request's SUBTASK_CHECK_TASKS. */
const tooManySubtasks = (field: "status" | "parentId") =>
  new DomainError(
    "conflict",
    `the task has more subtasks at all depths than a request may check (${SUBTASK_CHECK_TASKS}, a batch's checks together): send the change alone, or move some of its subtasks elsewhere first`,
    { field },
  );

export const tasks = resourceService({
  resource: statements.taskResource,
  statements: {
    create: statements.createTask,
    update: statements.updateTask,
    remove: statements.deleteTask,
    upsert: statements.upsertTask,
  },
  rules: {
    [RULES.transition]: (before, patch) => {
      const allowed = [...TASK_TRANSITIONS[before.status]];
      return new DomainError(
        "invalid_transition",
        `a task cannot move from ${before.status} to ${patch.status}; allowed: ${allowed.join(", ")}`,
        {
          field: "status",
          from: before.status,
          allowed,
        },
      );
    },
    // A refused move to done: the open blockers, or the open subtasks, by id.
    [RULES.blockers_closed]: (_before, _patch, blockers) =>
      new DomainError(
        "open_blockers",
        `the task is blocked by ${blockers.length} open ${blockers.length === 1 ? "task" : "tasks"}: finish or cancel ${blockers.length === 1 ? "it" : "them"} first`,
        {
          field: "status",
          blockers,
        },
      ),
    [RULES.subtasks_closed]: (_before, _patch, violation) => {
      if (!("open" in violation)) return tooManySubtasks("status");
      const subtasks = violation.open;
      return new DomainError(
        "open_subtasks",
        `the task has ${subtasks.length} open ${subtasks.length === 1 ? "subtask" : "subtasks"}: finish or cancel ${subtasks.length === 1 ? "it" : "them"} first`,
        {
          field: "status",
          subtasks,
        },
      );
    },
    [RULES.dates_ordered]: (before, patch) =>
      new DomainError(
        "invalid_field",
        `startDate must not be after dueDate (the task is due ${patch.dueDate ?? before.dueDate}${before.startDate ? `, starting ${before.startDate}` : ""})`,
        { field: patch.startDate !== undefined ? "startDate" : "dueDate" },
      ),
    [RULES.parent_acyclic]: (before, patch, path) =>
      new DomainError(
        "dependency_cycle",
        patch.parentId === before.id
          ? "a task cannot be its own parent"
          : `parentId names a subtask of this task: the task would be its own ancestor`,
        { field: "parentId", path },
      ),
    [RULES.parent_depth]: (_before, _patch, violation) => {
      if (!("level" in violation)) return tooManySubtasks("parentId");
      return new DomainError(
        "conflict",
        `subtasks nest at most ${MAX_TASK_DEPTH} levels: under this parent, the task's subtasks would reach level ${violation.level}`,
        {
          field: "parentId",
          maxDepth: MAX_TASK_DEPTH,
        },
      );
    },
  },
  removeRules: {
    [RULES.cascade_records]: () =>
      new DomainError(
        "conflict",
        `deleting the task takes more records with it (its comments, checklist items and files, and the tasks it blocks) than the request has left of its ${CASCADE_RECORDS} (a batch's deletes share them): send the delete alone, or delete some of its comments, checklist items or files first`,
        { maxRecords: CASCADE_RECORDS },
      ),
  },
});

/** "The task is blocked by blockedBy": task.updated with changes.blockedBy; a no-op when it already is. */
export async function addDependency({ ctx, input }: Call<{ id: string; blockedBy: string; ifMatch: number | null }>) {
  const outcome = await guarded(statements.addDependency(ctx.db, ctx.actor, input.id, input.blockedBy, input.ifMatch));
  const result = settleUpdate(outcome, {
    ctx,
    scope: "tasks.manage",
    noun: "task",
    rules: {
      [RULES.acyclic]: (before, violation) => {
        if (!("cycle" in violation)) {
          return new DomainError(
            "conflict",
            `the dependency graph around these tasks is too large to check for a cycle (${violation.linksFollowed} links followed, at most ${DEPENDENCY_CHECK_LINKS} a request, a batch's dependencies together): add it in a request of its own, or remove dependencies first`,
            { field: "blockedBy" },
          );
        }
        return new DomainError(
          "dependency_cycle",
          input.blockedBy === before.id
            ? "a task cannot be blocked by itself"
            : `${input.blockedBy} is already blocked by this task, directly or through others: the dependency would close a cycle`,
          { field: "blockedBy", path: violation.cycle },
        );
      },
      [RULES.blockers_limit]: () =>
        new DomainError("conflict", `a task is blocked by at most ${MAX_BLOCKERS} tasks`, { field: "blockedBy" }),
      [RULES.blocking_limit]: () =>
        new DomainError("conflict", `${input.blockedBy} blocks ${MAX_BLOCKING} tasks already, the most a task may block`, {
          field: "blockedBy",
        }),
    },
  });
  publishAfterCommit(ctx, result);
  return result;
}

/** "The task is no longer blocked by blockerId": 404 when it was not. */
export async function removeDependency({ ctx, input }: Call<{ id: string; blockerId: string; ifMatch: number | null }>) {
  const outcome = await guarded(statements.removeDependency(ctx.db, ctx.actor, input.id, input.blockerId, input.ifMatch));
  const result = settleUpdate(outcome, {
    ctx,
    scope: "tasks.manage",
    noun: "task",
    rules: { [RULES.dependency_exists]: () => new DomainError("not_found", `the task is not blocked by ${input.blockerId}`) },
  });
  publishAfterCommit(ctx, result);
  return result;
}
