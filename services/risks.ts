import * as statements from "../db/statements/risks.ts";
import { resourceService } from "./resource-service.ts";

export type { NewRisk, RiskRecord, RiskValues } from "../db/statements/risks.ts";

export const risks = resourceService({
  noun: "risk",
  resource: statements.riskResource,
  statements: { list: statements.listRisks, get: statements.getRisk, create: statements.createRisk, update: statements.updateRisk, remove: statements.deleteRisk, upsert: statements.upsertRisk },
});
