import {
  createFinancialEntry,
  deleteFinancialEntry,
  getFinancialEntry,
  listFinancialEntries,
  updateFinancialEntry,
} from "../../db/queries/financial-entries.ts";
import { notFound } from "../../db/queries/outcomes.ts";
import { pageRequest } from "../../db/queries/paging.ts";
import { listEnvelope, recordEnvelope, sendList, sendRecord, sendWrite } from "../envelope.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import {
  CreateFinancialEntrySchema,
  FinancialEntrySchema,
  ListFinancialEntriesQuery,
  UpdateFinancialEntrySchema,
} from "../schemas/financial-entries.ts";

const tag = "Financial entries";
const noun: [string, string] = ["financial entry", "financial entries"];
const MONEY_NOTE = 'amount is a decimal string with at most 2 decimals ("1234.50"); a JSON number is refused.';

export const financialEntryRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/financial-entries",
    operationId: "listFinancialEntries",
    scope: "financials.read",
    tag,
    summary: "List financial entries, filtered by project and kind, paged",
    query: ListFinancialEntriesQuery,
    response: { schema: listEnvelope(FinancialEntrySchema), description: "A page of financial entries in creation order." },
    async handler(c, { query }) {
      const { limit, cursor, ...filters } = query;
      return sendList(c, await listFinancialEntries(c.var.db, c.var.actor, pageRequest({ limit, cursor }), filters), noun);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/financial-entries",
    operationId: "createFinancialEntry",
    scope: "financials.manage",
    tag,
    summary: "Record a cost, invoice, payment or adjustment of a project (projectId, kind, amount, currency and date are required)",
    description: MONEY_NOTE,
    body: CreateFinancialEntrySchema,
    errors: ["invalid_reference"],
    response: { status: 201, schema: recordEnvelope(FinancialEntrySchema), description: "The recorded entry." },
    async handler(c, { body }) {
      return sendWrite(c, await createFinancialEntry(c.var.db, c.var.actor, body, c.var.idempotency), "financial entry created", 201);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/financial-entries/{id}",
    operationId: "getFinancialEntry",
    scope: "financials.read",
    tag,
    summary: "Fetch one financial entry",
    params: IdParams,
    response: { schema: recordEnvelope(FinancialEntrySchema), description: "The entry." },
    async handler(c, { params }) {
      const record = await getFinancialEntry(c.var.db, c.var.actor, params.id);
      if (!record) throw notFound("financial entry");
      return sendRecord(c, record, "financial entry");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/financial-entries/{id}",
    operationId: "updateFinancialEntry",
    scope: "financials.manage",
    tag,
    summary: "Correct a financial entry",
    description: `${MONEY_NOTE} Only an adjustment may be negative, whichever of kind and amount the patch changes.`,
    params: IdParams,
    body: UpdateFinancialEntrySchema,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(FinancialEntrySchema), description: "The changed entry." },
    async handler(c, { params, body }) {
      const result = await updateFinancialEntry(c.var.db, c.var.actor, params.id, body, parseIfMatch(c.req.header("if-match")));
      return sendWrite(c, result, result.event ? "financial entry updated" : "financial entry unchanged");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/financial-entries/{id}",
    operationId: "deleteFinancialEntry",
    scope: "financials.manage",
    tag,
    summary: "Remove a financial entry",
    params: IdParams,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(FinancialEntrySchema), description: "The entry as it was before removal." },
    async handler(c, { params }) {
      const result = await deleteFinancialEntry(c.var.db, c.var.actor, params.id, parseIfMatch(c.req.header("if-match")));
      return sendWrite(c, result, "financial entry deleted");
    },
  }),
];
