import { sql, type SQL } from "drizzle-orm";
import type { CreateRiskInput, ListRisksFilters, UpdateRiskInput } from "../../functions/schemas/risks.ts";
import type { Database } from "../client.ts";
import type { Actor } from "./actor.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { settleCreate, settleDelete, settleUpdate } from "./outcomes.ts";
import type { PageRequest } from "./paging.ts";
import { activePerson, projectOfOrganisation } from "./project-references.ts";
import { createRecord, deleteRecord, getRecord, listRecords, updateRecord, type Reference, type ResourceDef } from "./records.ts";

export const riskResource: ResourceDef = {
  table: "risks",
  type: "risk",
  readScope: "risks.read",
  manageScope: "risks.manage",
  columns: [
    { key: "projectId", column: "project_id", kind: "uuid" },
    { key: "title", column: "title", kind: "text" },
    { key: "description", column: "description", kind: "text" },
    { key: "probability", column: "probability", kind: "text" },
    { key: "impact", column: "impact", kind: "text" },
    { key: "status", column: "status", kind: "text" },
    { key: "ownerId", column: "owner_id", kind: "uuid" },
    { key: "mitigation", column: "mitigation", kind: "text" },
  ],
};

export function listRisks(db: Database, actor: Actor, page: PageRequest, f: ListRisksFilters) {
  const filters: SQL[] = [];
  if (f.projectId) filters.push(sql`r.project_id = ${f.projectId}::uuid`);
  if (f.status) filters.push(sql`r.status = any(${sql.param(f.status)}::text[])`);
  return listRecords(db, actor, riskResource, { ...page, filters });
}

export function getRisk(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, riskResource, id);
}

export async function createRisk(db: Database, actor: Actor, input: CreateRiskInput, idempotency?: IdempotencyRequest) {
  const references: Reference[] = [projectOfOrganisation(input.projectId)];
  if (input.ownerId) references.push(activePerson("ownerId", input.ownerId));
  return settleCreate(await createRecord(db, actor, riskResource, { values: input, references, idempotency }), "risk", idempotency);
}

export async function updateRisk(db: Database, actor: Actor, id: string, patch: UpdateRiskInput, ifMatch: number | null) {
  const references = patch.ownerId ? [activePerson("ownerId", patch.ownerId)] : [];
  return settleUpdate(await updateRecord(db, actor, riskResource, { id, patch, ifMatch, references, rules: [] }), "risk");
}

export async function deleteRisk(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return settleDelete(await deleteRecord(db, actor, riskResource, { id, ifMatch, blockers: [] }), "risk");
}
