import { risks } from "../../services/risks.ts";
import { PROJECT_EXPAND } from "../schemas/expansions.ts";
import { CreateRiskSchema, UpsertRiskSchema, RiskSchema, UpdateRiskSchema } from "../schemas/risks.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

export const riskRoutes = resourceRoutes({
  schemas: { record: RiskSchema, create: CreateRiskSchema, update: UpdateRiskSchema, upsert: UpsertRiskSchema, expand: PROJECT_EXPAND },
  summaries: {
    list: "List risks, filtered by project and status, paged",
    create: "Record a risk of a project (projectId and title are required)",
    get: "Fetch one risk",
    update: "Change a risk (any status move is allowed)",
    delete: "Remove a risk",
  },
  errors: { create: ["invalid_reference"], update: ["invalid_reference"] },
  upsertFixed: "projectId",
  service: risks,
  inputs: requestsAsIs,
});
