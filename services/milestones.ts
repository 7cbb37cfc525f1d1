import * as statements from "../db/statements/milestones.ts";
import { resourceService } from "./resource-service.ts";

export type { MilestoneRecord, MilestoneValues, NewMilestone } from "../db/statements/milestones.ts";

/** A project's milestones: listed and created under the project, reached by their own id otherwise. */
export const milestones = resourceService({
  resource: statements.milestoneResource,
  statements: {
    create: statements.createMilestone,
    update: statements.updateMilestone,
    upsert: statements.upsertMilestone,
    remove: statements.deleteMilestone,
  },
});
