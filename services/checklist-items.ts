import * as statements from "../db/statements/checklist-items.ts";
import { resourceService } from "./resource-service.ts";

export type { ChecklistItemRecord, ChecklistItemValues, NewChecklistItem } from "../db/statements/checklist-items.ts";

/** A task's checklist: items listed and added under the task, reached by their own id otherwise. */
export const checklistItems = resourceService({
  resource: statements.checklistItemResource,
  statements: {
    create: statements.createChecklistItem,
    update: statements.updateChecklistItem,
    upsert: statements.upsertChecklistItem,
    remove: statements.deleteChecklistItem,
  },
});
