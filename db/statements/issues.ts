import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { issues } from "../schema/index.ts";
import { filesOf } from "./attachment-cascades.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import { activePerson, anyPerson, projectOfOrganisation } from "./engine/references.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./engine/resource.ts";
import { sql } from "./engine/sql-tag.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";
import type { Reference } from "./engine/write-ctes.ts";
import { PROJECT_EXPANSION } from "./projects.ts";

export const issueResource = defineResource(RESOURCES.issue, issues, { expansions: PROJECT_EXPANSION });
export type IssueRecord = RecordOf<typeof issueResource>;
/** resolvedAt belongs to the service: it follows the status. */
export type IssueValues = Omit<FieldsOf<typeof issueResource>, "resolvedAt">;
export type NewIssue = IssueValues & Pick<IssueRecord, "projectId" | "title">;

const { locked: l } = issueResource;

function peopleReferences(values: { reporterId?: string | null | undefined; assigneeId?: string | null | undefined }): Reference[] {
  const references: Reference[] = [];
  if (values.reporterId) references.push(anyPerson("reporterId", values.reporterId));
  if (values.assigneeId) references.push(activePerson("assigneeId", values.assigneeId));
  return references;
}

const newIssue = (values: NewIssue) => ({ ...values, resolvedAt: values.status === "resolved" ? sql`now()` : undefined });
const createReferences = (values: NewIssue) => [projectOfOrganisation(values.projectId), ...peopleReferences(values)];

export function createIssue(db: Database, actor: Actor, values: NewIssue, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, issueResource, { values: newIssue(values), references: createReferences(values), idempotency });
}

/**
 * resolvedAt follows the status, computed on the locked row: becoming resolved stamps it (a closed
 * issue resolved earlier keeps its stamp), reopening clears it, closing keeps it.
 */
function resolvedAtFor(status: IssueValues["status"]): SQL | null | undefined {
  if (status === "resolved") return sql`coalesce(${l.resolvedAt}, now())`;
  if (status === "open" || status === "in_progress") return null;
  return undefined;
}

export function updateIssue(db: Database, actor: Actor, id: string, patch: IssueValues, ifMatch: number | null) {
  return updateRecord(db, actor, issueResource, {
    id,
    patch: { ...patch, resolvedAt: resolvedAtFor(patch.status) },
    ifMatch,
    references: peopleReferences(patch),
    rules: [],
  });
}

export function upsertIssue(db: Database, actor: Actor, externalId: string, values: NewIssue, ifMatch: number | null) {
  const { projectId: _fixed, ...patch } = values;
  return upsertRecord(db, actor, issueResource, {
    externalId,
    values: newIssue(values),
    patch: { ...patch, resolvedAt: resolvedAtFor(patch.status) },
    fixed: ["projectId"],
    ifMatch,
    create: { references: createReferences(values) },
    update: { references: peopleReferences(patch), rules: [] },
  });
}

export function deleteIssue(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, issueResource, { id, ifMatch, blockers: [], cascades: [filesOf("issue")] });
}
