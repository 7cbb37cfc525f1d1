import { RULES } from "../db/statements/engine/rules.ts";
import * as statements from "../db/statements/financial-entries.ts";
import { getProjectFinancials } from "../db/statements/project-financials.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import type { Call } from "./context.ts";
import { tooManyFiles } from "./refusals.ts";
import { resourceService } from "./resource-service.ts";
import { settleCaller } from "./settle.ts";

export type { FinancialEntryRecord, FinancialEntryValues, NewFinancialEntry } from "../db/statements/financial-entries.ts";
export type { ProjectFinancials } from "../db/statements/project-financials.ts";

export const financialEntries = resourceService({
  resource: statements.financialEntryResource,
  statements: {
    create: statements.createFinancialEntry,
    update: statements.updateFinancialEntry,
    upsert: statements.upsertFinancialEntry,
    remove: statements.deleteFinancialEntry,
  },
  rules: {
    [RULES.sign_fits_kind]: (before, patch) =>
      new DomainError("invalid_field", `only an adjustment may be negative; this entry is ${patch.kind ?? before.kind}`, {
        field: "amount",
      }),
  },
  removeRules: tooManyFiles("financial entry"),
});

/**
 * A project's budget, costs, adjustments, invoiced, paid and remaining. Amounts of different
 * currencies are never added: with several and none chosen, a conflict lists them.
 */
export async function projectFinancials({ ctx, input }: Call<{ projectId: string; currency?: string | undefined }>) {
  const outcome = await getProjectFinancials(ctx.db, ctx.actor, input.projectId, input.currency);
  settleCaller(outcome.caller, ctx, "financials.read");
  if (!outcome.found) throw notFound("project");
  const { summary, currencies } = outcome.found;
  if (!input.currency && currencies.length > 1) {
    throw new DomainError("conflict", `the project has entries in ${currencies.join(", ")}; pass ?currency= to choose one`, {
      field: "currency",
      currencies,
    });
  }
  return summary;
}
