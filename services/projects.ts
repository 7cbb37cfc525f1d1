import { RULES } from "../db/statements/engine/rules.ts";
import * as statements from "../db/statements/projects.ts";
import { DomainError } from "../domain/errors.ts";
import { resourceService } from "./resource-service.ts";

export type { NewProject, ProjectRecord, ProjectValues } from "../db/statements/projects.ts";

export const projects = resourceService({
  resource: statements.projectResource,
  statements: {
    create: statements.createProject,
    update: statements.updateProject,
    upsert: statements.upsertProject,
    remove: statements.deleteProject,
  },
  rules: {
    [RULES.dates_ordered]: (before, patch) =>
      new DomainError("invalid_field", `endDate must not be before startDate (the project runs ${before.startDate} to ${before.endDate})`, {
        field: patch.endDate ? "endDate" : "startDate",
      }),
  },
});
