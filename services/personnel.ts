import * as statements from "../db/statements/personnel.ts";
import { resourceService } from "./resource-service.ts";

export type { NewPerson, PersonRecord, PersonValues } from "../db/statements/personnel.ts";

/** People are deactivated (active: false), never deleted: records name them. */
export const personnel = resourceService({
  resource: statements.personnelResource,
  statements: { create: statements.createPerson, update: statements.updatePerson, upsert: statements.upsertPerson },
});
