import type { Actor } from "../../domain/actor.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { financialEntries } from "../schema/index.ts";
import { filesOf } from "./attachment-cascades.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import { projectOfOrganisation } from "./engine/references.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./engine/resource.ts";
import { RULES } from "./engine/rules.ts";
import { sql } from "./engine/sql-tag.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";
import { PROJECT_EXPANSION } from "./projects.ts";

// An amount is sent and answered as a decimal string: never a float on the way in or out.
export const financialEntryResource = defineResource(RESOURCES.financialEntry, financialEntries, {
  expansions: PROJECT_EXPANSION,
  money: ["amount"],
});
export type FinancialEntryRecord = RecordOf<typeof financialEntryResource>;
export type FinancialEntryValues = FieldsOf<typeof financialEntryResource>;
export type NewFinancialEntry = FinancialEntryValues & Pick<FinancialEntryRecord, "projectId" | "kind" | "amount" | "currency" | "date">;

const { locked: l } = financialEntryResource;

export function createFinancialEntry(db: Database, actor: Actor, values: NewFinancialEntry, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, financialEntryResource, { values, references: [projectOfOrganisation(values.projectId)], idempotency });
}

/**
 * A patch may carry only the kind or only the amount: `sign_fits_kind` checks the sign against
 * the stored other half, on the locked row.
 */
export function updateFinancialEntry(db: Database, actor: Actor, id: string, patch: FinancialEntryValues, ifMatch: number | null) {
  return updateRecord(db, actor, financialEntryResource, { id, patch, ifMatch, ...updateChecks(patch) });
}

function updateChecks(patch: FinancialEntryValues) {
  const kind = sql`coalesce(${patch.kind ?? null}::text, ${l.kind})`;
  const amount = sql`coalesce(${patch.amount ?? null}::numeric, ${l.amount})`;
  return { references: [], rules: [{ name: RULES.sign_fits_kind, holds: sql`${kind} = 'adjustment' or ${amount} > 0` }] };
}

export function upsertFinancialEntry(db: Database, actor: Actor, externalId: string, values: NewFinancialEntry, ifMatch: number | null) {
  return upsertRecord(db, actor, financialEntryResource, {
    externalId,
    values,
    fixed: ["projectId"],
    ifMatch,
    create: { references: [projectOfOrganisation(values.projectId)] },
    update: updateChecks(values),
  });
}

export function deleteFinancialEntry(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, financialEntryResource, { id, ifMatch, blockers: [], cascades: [filesOf("financialEntry")] });
}
