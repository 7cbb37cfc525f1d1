import { financialEntries } from "../../services/financial-entries.ts";
import { PROJECT_EXPAND } from "../schemas/expansions.ts";
import {
  CreateFinancialEntrySchema,
  UpsertFinancialEntrySchema,
  FinancialEntrySchema,
  UpdateFinancialEntrySchema,
} from "../schemas/financial-entries.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

const MONEY_NOTE = 'amount is a decimal string with at most 2 decimals ("1234.50"); a JSON number is refused.';

export const financialEntryRoutes = resourceRoutes({
  schemas: {
    record: FinancialEntrySchema,
    create: CreateFinancialEntrySchema,
    update: UpdateFinancialEntrySchema,
    upsert: UpsertFinancialEntrySchema,
    expand: PROJECT_EXPAND,
  },
  summaries: {
    list: "List financial entries, filtered by project and kind, paged",
    create: "Record a cost, invoice, payment or adjustment of a project (projectId, kind, amount, currency and date are required)",
    get: "Fetch one financial entry",
    update: "Correct a financial entry",
    delete: "Remove a financial entry",
  },
  descriptions: {
    create: MONEY_NOTE,
    update: `${MONEY_NOTE} Only an adjustment may be negative, whichever of kind and amount the patch changes.`,
  },
  errors: { create: ["invalid_reference"] },
  upsertFixed: "projectId",
  service: financialEntries,
  inputs: requestsAsIs,
});
