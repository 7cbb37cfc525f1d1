import * as statements from "../db/statements/risks.ts";
import { tooManyFiles } from "./refusals.ts";
import { resourceService } from "./resource-service.ts";

export type { NewRisk, RiskRecord, RiskValues } from "../db/statements/risks.ts";

export const risks = resourceService({
  resource: statements.riskResource,
  statements: {
    create: statements.createRisk,
    update: statements.updateRisk,
    remove: statements.deleteRisk,
    upsert: statements.upsertRisk,
  },
  removeRules: tooManyFiles("risk"),
});
