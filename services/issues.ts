import * as statements from "../db/statements/issues.ts";
import { resourceService } from "./resource-service.ts";

export type { IssueRecord, IssueValues, NewIssue } from "../db/statements/issues.ts";

export const issues = resourceService({
  noun: "issue",
  resource: statements.issueResource,
  statements: { list: statements.listIssues, get: statements.getIssue, create: statements.createIssue, update: statements.updateIssue, remove: statements.deleteIssue, upsert: statements.upsertIssue },
});
