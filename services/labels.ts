import * as statements from "../db/statements/labels.ts";
import { resourceService } from "./resource-service.ts";

export type { LabelRecord, LabelValues, NewLabel } from "../db/statements/labels.ts";

/** Labels of the organisation; deleting one takes it off every task (an event each). */
export const labels = resourceService({
  noun: "label",
  resource: statements.labelResource,
  statements: { list: statements.listLabels, get: statements.getLabel, create: statements.createLabel, update: statements.updateLabel, remove: statements.deleteLabel, upsert: statements.upsertLabel },
});
