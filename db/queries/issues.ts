import { sql, type SQL } from "drizzle-orm";
import type { CreateIssueInput, ListIssuesFilters, UpdateIssueInput } from "../../functions/schemas/issues.ts";
import type { Database } from "../client.ts";
import type { Actor } from "./actor.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { settleCreate, settleDelete, settleUpdate } from "./outcomes.ts";
import type { PageRequest } from "./paging.ts";
import { activePerson, anyPerson, projectOfOrganisation } from "./project-references.ts";
import { createRecord, deleteRecord, getRecord, listRecords, updateRecord, type Reference, type ResourceDef } from "./records.ts";

export const issueResource: ResourceDef = {
  table: "issues",
  type: "issue",
  readScope: "issues.read",
  manageScope: "issues.manage",
  columns: [
    { key: "projectId", column: "project_id", kind: "uuid" },
    { key: "title", column: "title", kind: "text" },
    { key: "description", column: "description", kind: "text" },
    { key: "severity", column: "severity", kind: "text" },
    { key: "status", column: "status", kind: "text" },
    { key: "reporterId", column: "reporter_id", kind: "uuid" },
    { key: "assigneeId", column: "assignee_id", kind: "uuid" },
    { key: "resolvedAt", column: "resolved_at", kind: "timestamp" },
  ],
};

export function listIssues(db: Database, actor: Actor, page: PageRequest, f: ListIssuesFilters) {
  const filters: SQL[] = [];
  if (f.projectId) filters.push(sql`r.project_id = ${f.projectId}::uuid`);
  if (f.status) filters.push(sql`r.status = any(${sql.param(f.status)}::text[])`);
  return listRecords(db, actor, issueResource, { ...page, filters });
}

export function getIssue(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, issueResource, id);
}

function peopleReferences(input: { reporterId?: string | null | undefined; assigneeId?: string | null | undefined }): Reference[] {
  const references: Reference[] = [];
  if (input.reporterId) references.push(anyPerson("reporterId", input.reporterId));
  if (input.assigneeId) references.push(activePerson("assigneeId", input.assigneeId));
  return references;
}

export async function createIssue(db: Database, actor: Actor, input: CreateIssueInput, idempotency?: IdempotencyRequest) {
  const references = [projectOfOrganisation(input.projectId), ...peopleReferences(input)];
  const values = { ...input, resolvedAt: input.status === "resolved" ? sql`now()` : undefined };
  return settleCreate(await createRecord(db, actor, issueResource, { values, references, idempotency }), "issue", idempotency);
}

/**
 * resolvedAt follows the status, computed on the locked row `l`: becoming resolved stamps it
 * (a closed issue resolved earlier keeps its stamp), reopening clears it, closing keeps it.
 */
function resolvedAtFor(status: UpdateIssueInput["status"]): SQL | null | undefined {
  if (status === "resolved") return sql`coalesce(l.resolved_at, now())`;
  if (status === "open" || status === "in_progress") return null;
  return undefined;
}

export async function updateIssue(db: Database, actor: Actor, id: string, patch: UpdateIssueInput, ifMatch: number | null) {
  const withResolvedAt = { ...patch, resolvedAt: resolvedAtFor(patch.status) };
  const outcome = await updateRecord(db, actor, issueResource, { id, patch: withResolvedAt, ifMatch, references: peopleReferences(patch), rules: [] });
  return settleUpdate(outcome, "issue");
}

export async function deleteIssue(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return settleDelete(await deleteRecord(db, actor, issueResource, { id, ifMatch, blockers: [] }), "issue");
}
