import { sql, type SQL } from "drizzle-orm";
import { ApiError } from "../../functions/errors.ts";
import type { CreateFinancialEntryInput, ListFinancialEntriesFilters, UpdateFinancialEntryInput } from "../../functions/schemas/financial-entries.ts";
import type { Database } from "../client.ts";
import type { Actor } from "./actor.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { settleCreate, settleDelete, settleUpdate } from "./outcomes.ts";
import type { PageRequest } from "./paging.ts";
import { projectOfOrganisation } from "./project-references.ts";
import { createRecord, deleteRecord, getRecord, listRecords, updateRecord, type ResourceDef } from "./records.ts";

export const financialEntryResource: ResourceDef = {
  table: "financial_entries",
  type: "financialEntry",
  readScope: "financials.read",
  manageScope: "financials.manage",
  columns: [
    { key: "projectId", column: "project_id", kind: "uuid" },
    { key: "kind", column: "kind", kind: "text" },
    // Sent and answered as a decimal string: never a float on the way in or out.
    { key: "amount", column: "amount", kind: "decimal" },
    { key: "currency", column: "currency", kind: "text" },
    { key: "date", column: "date", kind: "date" },
    { key: "description", column: "description", kind: "text" },
    { key: "reference", column: "reference", kind: "text" },
  ],
};

export function listFinancialEntries(db: Database, actor: Actor, page: PageRequest, f: ListFinancialEntriesFilters) {
  const filters: SQL[] = [];
  if (f.projectId) filters.push(sql`r.project_id = ${f.projectId}::uuid`);
  if (f.kind) filters.push(sql`r.kind = any(${sql.param(f.kind)}::text[])`);
  return listRecords(db, actor, financialEntryResource, { ...page, filters });
}

export function getFinancialEntry(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, financialEntryResource, id);
}

export async function createFinancialEntry(db: Database, actor: Actor, input: CreateFinancialEntryInput, idempotency?: IdempotencyRequest) {
  const outcome = await createRecord(db, actor, financialEntryResource, { values: input, references: [projectOfOrganisation(input.projectId)], idempotency });
  return settleCreate(outcome, "financial entry", idempotency);
}

export async function updateFinancialEntry(db: Database, actor: Actor, id: string, patch: UpdateFinancialEntryInput, ifMatch: number | null) {
  // A patch may carry only the kind or only the amount: the sign rule is checked against the
  // stored other half, on the locked row.
  const kind = sql`coalesce(${patch.kind ?? null}::text, l.kind)`;
  const amount = sql`coalesce(${patch.amount ?? null}::numeric, l.amount)`;
  const outcome = await updateRecord(db, actor, financialEntryResource, {
    id,
    patch,
    ifMatch,
    references: [],
    rules: [{ name: "sign_fits_kind", holds: sql`${kind} = 'adjustment' or ${amount} > 0` }],
  });
  return settleUpdate(outcome, "financial entry", {
    sign_fits_kind: (before) =>
      new ApiError("invalid_field", `only an adjustment may be negative; this entry is ${patch.kind ?? String(before.kind)}`, { field: "amount" }),
  });
}

export async function deleteFinancialEntry(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return settleDelete(await deleteRecord(db, actor, financialEntryResource, { id, ifMatch, blockers: [] }), "financial entry");
}
