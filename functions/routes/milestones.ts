import { milestones } from "../../services/milestones.ts";
import { PROJECT_EXPAND } from "../schemas/expansions.ts";
import { CreateMilestoneSchema, UpsertMilestoneSchema, MilestoneSchema, UpdateMilestoneSchema } from "../schemas/milestones.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

// A project's milestones: listed and added under the project, reached by their own id otherwise.
// collectionPath guarantees the project's id to list and create.

export const milestoneRoutes = resourceRoutes({
  schemas: {
    record: MilestoneSchema,
    create: CreateMilestoneSchema,
    update: UpdateMilestoneSchema,
    upsert: UpsertMilestoneSchema,
    expand: PROJECT_EXPAND,
  },
  summaries: {
    list: "List a project's milestones",
    create: "Add a milestone to a project (name and dueDate are required)",
    get: "Fetch one milestone",
    update: "Change a milestone",
    delete: "Remove a milestone that no task points at",
  },
  listDescription: "A page of the project's milestones.",
  upsertFixed: "projectId",
  service: milestones,
  inputs: {
    ...requestsAsIs,
    create: (body, projectId) => ({ ...body, projectId: projectId! }),
  },
});
