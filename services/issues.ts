import * as statements from "../db/statements/issues.ts";
import { tooManyFiles } from "./refusals.ts";
import { resourceService } from "./resource-service.ts";

export type { IssueRecord, IssueValues, NewIssue } from "../db/statements/issues.ts";

export const issues = resourceService({
  resource: statements.issueResource,
  statements: {
    create: statements.createIssue,
    update: statements.updateIssue,
    remove: statements.deleteIssue,
    upsert: statements.upsertIssue,
  },
  removeRules: tooManyFiles("issue"),
});
