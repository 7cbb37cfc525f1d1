import { getProjectFinancials } from "../../db/queries/project-financials.ts";
import { recordEnvelope } from "../envelope.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { ProjectFinancialsQuery, ProjectFinancialsSchema } from "../schemas/financial-entries.ts";

export const projectFinancialsRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/projects/{id}/financials",
    operationId: "getProjectFinancials",
    scope: "financials.read",
    tag: "Financial entries",
    summary: "A project's budget, costs, adjustments, invoiced, paid and remaining, as exact decimal strings",
    description:
      "remaining = budget - (costs + adjustments). Invoices and payments are reported, not spent. " +
      "Amounts of different currencies are never added: the totals are in ?currency=, or in the project's only currency; " +
      "a project with entries in several currencies needs ?currency= (409 conflict lists them).",
    params: IdParams,
    query: ProjectFinancialsQuery,
    errors: ["conflict"],
    response: { schema: recordEnvelope(ProjectFinancialsSchema), description: "The project's finances." },
    async handler(c, { params, query }) {
      const financials = await getProjectFinancials(c.var.db, c.var.actor, params.id, query.currency);
      // A computed view, not a record: no version, so no ETag.
      return c.json({ success: true, version: "v1", message: "project financials", data: financials });
    },
  }),
];
