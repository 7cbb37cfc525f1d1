import { sql, type SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { SORTABLE, type PageRequest } from "../../domain/paging.ts";
import type { Database } from "../client.ts";
import { risks } from "../schema/index.ts";
import { createRecord } from "./create.ts";
import { deleteRecord } from "./delete.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { getRecord, listRecords, type ListQuery } from "./read.ts";
import type { RecordView } from "./projection.ts";
import { PROJECT_EXPANSION } from "./projects.ts";
import { activePerson, projectOfOrganisation } from "./references.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./resource.ts";
import { updateRecord } from "./update.ts";
import { upsertRecord } from "./upsert.ts";
import type { Reference } from "./write-ctes.ts";

export const riskResource = defineResource(risks, {
  type: "risk",
  readScope: "risks.read",
  manageScope: "risks.manage",
  sortable: SORTABLE.risks,
  expansions: PROJECT_EXPANSION,
});
export type RiskRecord = RecordOf<typeof riskResource>;
export type RiskValues = FieldsOf<typeof riskResource>;
export type NewRisk = RiskValues & Pick<RiskRecord, "projectId" | "title">;

const { row: r } = riskResource;

export function listRisks(db: Database, actor: Actor, page: PageRequest, f: { externalId?: string | undefined; projectId?: string | undefined; status?: string[] | undefined }, query: ListQuery = {}) {
  const filters: SQL[] = [];
  if (f.projectId) filters.push(sql`${r.projectId} = ${f.projectId}::uuid`);
  if (f.status) filters.push(sql`${r.status} = any(${sql.param(f.status)}::text[])`);
  return listRecords(db, actor, riskResource, { page, filters, externalId: f.externalId,
    ...query,
  });
}

export function getRisk(db: Database, actor: Actor, id: string, view?: RecordView) {
  return getRecord(db, actor, riskResource, id, { view });
}

function createReferences(values: NewRisk): Reference[] {
  const references: Reference[] = [projectOfOrganisation(values.projectId)];
  if (values.ownerId) references.push(activePerson("ownerId", values.ownerId));
  return references;
}

export function createRisk(db: Database, actor: Actor, values: NewRisk, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, riskResource, { values, references: createReferences(values), idempotency });
}

const updateReferences = (patch: RiskValues) => (patch.ownerId ? [activePerson("ownerId", patch.ownerId)] : []);

export function updateRisk(db: Database, actor: Actor, id: string, patch: RiskValues, ifMatch: number | null) {
  return updateRecord(db, actor, riskResource, { id, patch, ifMatch, references: updateReferences(patch), rules: [] });
}

export function upsertRisk(db: Database, actor: Actor, externalId: string, values: NewRisk, ifMatch: number | null) {
  return upsertRecord(db, actor, riskResource, {
    externalId,
    values,
    fixed: ["projectId"],
    ifMatch,
    create: { references: createReferences(values) },
    update: { references: updateReferences(values), rules: [] },
  });
}

export function deleteRisk(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, riskResource, { id, ifMatch, blockers: [] });
}
