import { projects } from "../../services/projects.ts";
import { CreateProjectSchema, UpsertProjectSchema, ProjectSchema, UpdateProjectSchema } from "../schemas/projects.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

export const projectRoutes = resourceRoutes({
  schemas: { record: ProjectSchema, create: CreateProjectSchema, update: UpdateProjectSchema, upsert: UpsertProjectSchema },
  summaries: {
    list: "List the organisation's projects",
    create: "Create a project (name, budget, startDate and endDate are required; budget 0 means none)",
    get: "Fetch one project",
    update: "Change a project",
    delete: "Remove a project that nothing points at any more (milestones, tasks, risks, issues, financial entries)",
  },
  service: projects,
  inputs: requestsAsIs,
});
