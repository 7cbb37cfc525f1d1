import { notFound } from "../../db/queries/outcomes.ts";
import { pageRequest } from "../../db/queries/paging.ts";
import { createRisk, deleteRisk, getRisk, listRisks, updateRisk } from "../../db/queries/risks.ts";
import { listEnvelope, recordEnvelope, sendList, sendRecord, sendWrite } from "../envelope.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { CreateRiskSchema, ListRisksQuery, RiskSchema, UpdateRiskSchema } from "../schemas/risks.ts";

const tag = "Risks";

export const riskRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/risks",
    operationId: "listRisks",
    scope: "risks.read",
    tag,
    summary: "List risks, filtered by project and status, paged",
    query: ListRisksQuery,
    response: { schema: listEnvelope(RiskSchema), description: "A page of risks in creation order." },
    async handler(c, { query }) {
      const { limit, cursor, ...filters } = query;
      return sendList(c, await listRisks(c.var.db, c.var.actor, pageRequest({ limit, cursor }), filters), ["risk", "risks"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/risks",
    operationId: "createRisk",
    scope: "risks.manage",
    tag,
    summary: "Record a risk of a project (projectId and title are required)",
    body: CreateRiskSchema,
    errors: ["invalid_reference"],
    response: { status: 201, schema: recordEnvelope(RiskSchema), description: "The recorded risk." },
    async handler(c, { body }) {
      return sendWrite(c, await createRisk(c.var.db, c.var.actor, body, c.var.idempotency), "risk created", 201);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/risks/{id}",
    operationId: "getRisk",
    scope: "risks.read",
    tag,
    summary: "Fetch one risk",
    params: IdParams,
    response: { schema: recordEnvelope(RiskSchema), description: "The risk." },
    async handler(c, { params }) {
      const record = await getRisk(c.var.db, c.var.actor, params.id);
      if (!record) throw notFound("risk");
      return sendRecord(c, record, "risk");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/risks/{id}",
    operationId: "updateRisk",
    scope: "risks.manage",
    tag,
    summary: "Change a risk (any status move is allowed)",
    params: IdParams,
    body: UpdateRiskSchema,
    errors: ["invalid_reference", "conflict", "precondition_failed"],
    response: { schema: recordEnvelope(RiskSchema), description: "The changed risk." },
    async handler(c, { params, body }) {
      const result = await updateRisk(c.var.db, c.var.actor, params.id, body, parseIfMatch(c.req.header("if-match")));
      return sendWrite(c, result, result.event ? "risk updated" : "risk unchanged");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/risks/{id}",
    operationId: "deleteRisk",
    scope: "risks.manage",
    tag,
    summary: "Remove a risk",
    params: IdParams,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(RiskSchema), description: "The risk as it was before removal." },
    async handler(c, { params }) {
      return sendWrite(c, await deleteRisk(c.var.db, c.var.actor, params.id, parseIfMatch(c.req.header("if-match"))), "risk deleted");
    },
  }),
];
