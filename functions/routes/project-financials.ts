import { projectFinancials } from "../../services/financial-entries.ts";
import { serviceContext } from "../http/context.ts";
import { recordEnvelope, reply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
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
    verb: projectFinancials,
    async handler(c, { params, query }) {
      const financials = await projectFinancials({ ctx: serviceContext(c), input: { projectId: params.id, currency: query.currency } });
      // A computed view, not a record: no version, so no ETag.
      return reply(financials, "project financials");
    },
  }),
];
