import type { Actor } from "../../domain/actor.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { risks } from "../schema/index.ts";
import { filesOf } from "./attachment-cascades.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import { activePerson, projectOfOrganisation } from "./engine/references.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./engine/resource.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";
import type { Reference } from "./engine/write-ctes.ts";
import { PROJECT_EXPANSION } from "./projects.ts";

export const riskResource = defineResource(RESOURCES.risk, risks, { expansions: PROJECT_EXPANSION });
export type RiskRecord = RecordOf<typeof riskResource>;
export type RiskValues = FieldsOf<typeof riskResource>;
export type NewRisk = RiskValues & Pick<RiskRecord, "projectId" | "title">;

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
  return deleteRecord(db, actor, riskResource, { id, ifMatch, blockers: [], cascades: [filesOf("risk")] });
}
