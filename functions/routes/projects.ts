import { notFound } from "../../db/queries/outcomes.ts";
import { pageRequest } from "../../db/queries/paging.ts";
import { createProject, deleteProject, getProject, listProjects, updateProject } from "../../db/queries/projects.ts";
import { listEnvelope, recordEnvelope, sendList, sendRecord, sendWrite } from "../envelope.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { CreateProjectSchema, ListProjectsQuery, ProjectSchema, UpdateProjectSchema } from "../schemas/projects.ts";

const tag = "Projects";

export const projectRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/projects",
    operationId: "listProjects",
    scope: "projects.read",
    tag,
    summary: "List the organisation's projects",
    query: ListProjectsQuery,
    response: { schema: listEnvelope(ProjectSchema), description: "A page of projects in creation order." },
    async handler(c, { query }) {
      const { limit, cursor, ...filters } = query;
      return sendList(c, await listProjects(c.var.db, c.var.actor, pageRequest({ limit, cursor }), filters), ["project", "projects"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/projects",
    operationId: "createProject",
    scope: "projects.manage",
    tag,
    summary: "Create a project (name, budget, startDate and endDate are required; budget 0 means none)",
    body: CreateProjectSchema,
    response: { status: 201, schema: recordEnvelope(ProjectSchema), description: "The created project." },
    async handler(c, { body }) {
      return sendWrite(c, await createProject(c.var.db, c.var.actor, body, c.var.idempotency), "project created", 201);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/projects/{id}",
    operationId: "getProject",
    scope: "projects.read",
    tag,
    summary: "Fetch one project",
    params: IdParams,
    response: { schema: recordEnvelope(ProjectSchema), description: "The project." },
    async handler(c, { params }) {
      const record = await getProject(c.var.db, c.var.actor, params.id);
      if (!record) throw notFound("project");
      return sendRecord(c, record, "project");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/projects/{id}",
    operationId: "updateProject",
    scope: "projects.manage",
    tag,
    summary: "Change a project",
    params: IdParams,
    body: UpdateProjectSchema,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(ProjectSchema), description: "The changed project." },
    async handler(c, { params, body }) {
      const result = await updateProject(c.var.db, c.var.actor, params.id, body, parseIfMatch(c.req.header("if-match")));
      return sendWrite(c, result, result.event ? "project updated" : "project unchanged");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/projects/{id}",
    operationId: "deleteProject",
    scope: "projects.manage",
    tag,
    summary: "Remove a project that nothing points at any more (milestones, tasks, risks, issues, financial entries)",
    params: IdParams,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(ProjectSchema), description: "The project as it was before removal." },
    async handler(c, { params }) {
      return sendWrite(c, await deleteProject(c.var.db, c.var.actor, params.id, parseIfMatch(c.req.header("if-match"))), "project deleted");
    },
  }),
];
