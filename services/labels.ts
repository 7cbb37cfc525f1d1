import { RULES } from "../db/statements/engine/rules.ts";
import * as statements from "../db/statements/labels.ts";
import { DomainError } from "../domain/errors.ts";
import { CASCADE_RECORDS } from "../domain/limits.ts";
import { resourceService } from "./resource-service.ts";

export type { LabelRecord, LabelValues, NewLabel } from "../db/statements/labels.ts";

/**
 * Labels of the organisation; deleting one takes it off every task (an event each), as many as the
 * request has left of CASCADE_RECORDS: a label on more is refused, as Stripe refuses to delete a
 * product that still has prices, until it is taken off some of its tasks.
 */
export const labels = resourceService({
  resource: statements.labelResource,
  statements: {
    create: statements.createLabel,
    update: statements.updateLabel,
    remove: statements.deleteLabel,
    upsert: statements.upsertLabel,
  },
  removeRules: {
    [RULES.cascade_records]: () =>
      new DomainError(
        "conflict",
        `the label is on more tasks than a request may change with its deletes (${CASCADE_RECORDS}, a batch's deletes together): take it off some of its tasks first (GET /v1/tasks?labelId= lists them), then delete it`,
        { maxRecords: CASCADE_RECORDS },
      ),
  },
});
