import { projects } from "../../services/projects.ts";
import { CreateProjectSchema, UpsertProjectSchema, ListProjectsQuery, ProjectSchema, UpdateProjectSchema } from "../schemas/projects.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

export const projectRoutes = resourceRoutes({
  tag: "Projects",
  path: "/v1/projects",
  noun: ["project", "projects"],
  names: { list: "listProjects", create: "createProject", get: "getProject", update: "updateProject", delete: "deleteProject" },
  scopes: { read: "projects.read", manage: "projects.manage" },
  schemas: { record: ProjectSchema, create: CreateProjectSchema, update: UpdateProjectSchema, list: ListProjectsQuery, upsert: UpsertProjectSchema },
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
