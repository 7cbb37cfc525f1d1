import * as statements from "../db/statements/tasks.ts";
import { DomainError } from "../domain/errors.ts";
import { TASK_TRANSITIONS } from "../domain/records.ts";
import { resourceService } from "./resource-service.ts";

export type { NewTask, TaskFilters, TaskRecord, TaskValues } from "../db/statements/tasks.ts";

export const tasks = resourceService({
  noun: "task",
  resource: statements.taskResource,
  statements: { list: statements.listTasks, get: statements.getTask, create: statements.createTask, update: statements.updateTask, remove: statements.deleteTask, upsert: statements.upsertTask },
  rules: {
    transition: (before, patch) => {
      const allowed = [...TASK_TRANSITIONS[before.status]];
      return new DomainError("invalid_transition", `a task cannot move from ${before.status} to ${patch.status}; allowed: ${allowed.join(", ")}`, {
        field: "status",
        from: before.status,
        allowed,
      });
    },
  },
});
