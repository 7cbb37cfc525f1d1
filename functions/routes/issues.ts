import { notFound } from "../../db/queries/outcomes.ts";
import { pageRequest } from "../../db/queries/paging.ts";
import { createIssue, deleteIssue, getIssue, listIssues, updateIssue } from "../../db/queries/issues.ts";
import { listEnvelope, recordEnvelope, sendList, sendRecord, sendWrite } from "../envelope.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { CreateIssueSchema, IssueSchema, ListIssuesQuery, UpdateIssueSchema } from "../schemas/issues.ts";

const tag = "Issues";

export const issueRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/issues",
    operationId: "listIssues",
    scope: "issues.read",
    tag,
    summary: "List issues, filtered by project and status, paged",
    query: ListIssuesQuery,
    response: { schema: listEnvelope(IssueSchema), description: "A page of issues in creation order." },
    async handler(c, { query }) {
      const { limit, cursor, ...filters } = query;
      return sendList(c, await listIssues(c.var.db, c.var.actor, pageRequest({ limit, cursor }), filters), ["issue", "issues"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/issues",
    operationId: "createIssue",
    scope: "issues.manage",
    tag,
    summary: "Report an issue of a project (projectId and title are required)",
    body: CreateIssueSchema,
    errors: ["invalid_reference"],
    response: { status: 201, schema: recordEnvelope(IssueSchema), description: "The reported issue." },
    async handler(c, { body }) {
      return sendWrite(c, await createIssue(c.var.db, c.var.actor, body, c.var.idempotency), "issue created", 201);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/issues/{id}",
    operationId: "getIssue",
    scope: "issues.read",
    tag,
    summary: "Fetch one issue",
    params: IdParams,
    response: { schema: recordEnvelope(IssueSchema), description: "The issue." },
    async handler(c, { params }) {
      const record = await getIssue(c.var.db, c.var.actor, params.id);
      if (!record) throw notFound("issue");
      return sendRecord(c, record, "issue");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/issues/{id}",
    operationId: "updateIssue",
    scope: "issues.manage",
    tag,
    summary: "Change an issue; resolvedAt follows the status",
    description:
      "Any status move is allowed. Moving to resolved sets resolvedAt (an issue closed after being resolved keeps it); " +
      "moving back to open or in_progress clears it; closing keeps whatever it was. Send If-Match with the ETag to refuse a stale write.",
    params: IdParams,
    body: UpdateIssueSchema,
    errors: ["invalid_reference", "conflict", "precondition_failed"],
    response: { schema: recordEnvelope(IssueSchema), description: "The changed issue." },
    async handler(c, { params, body }) {
      const result = await updateIssue(c.var.db, c.var.actor, params.id, body, parseIfMatch(c.req.header("if-match")));
      return sendWrite(c, result, result.event ? "issue updated" : "issue unchanged");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/issues/{id}",
    operationId: "deleteIssue",
    scope: "issues.manage",
    tag,
    summary: "Remove an issue",
    params: IdParams,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(IssueSchema), description: "The issue as it was before removal." },
    async handler(c, { params }) {
      return sendWrite(c, await deleteIssue(c.var.db, c.var.actor, params.id, parseIfMatch(c.req.header("if-match"))), "issue deleted");
    },
  }),
];
