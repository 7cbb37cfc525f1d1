import { z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/paging.ts";
import { organisationOverview, projectSummary } from "../../services/project-summaries.ts";
import { serviceContext } from "../http/context.ts";
import { listEnvelope, listReply, recordEnvelope, reply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { IdParams, pageQuery } from "../schemas/common.ts";
import { ProjectHealthSchema, ProjectSummarySchema, type ProjectHealth, type ProjectSummary } from "../schemas/project-summaries.ts";

// The pictures of how projects stand (the console's overview pages): computed views, not records,
// so no version and no ETag. Each section other than the project's own needs its records' read
// scope, and is null without it.

const tag = "Projects";
const SECTIONS =
  "Each section needs the read scope of its records (tasks.read, risks.read, issues.read, financials.read) and is null without it; " +
  "amounts of different currencies are never added. Overdue: open and due before `today`, the database's date.";

export const projectSummaryRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/projects/{id}/summary",
    operationId: "getProjectSummary",
    scope: "projects.read",
    tag,
    summary: "A project's tasks by status and progress over time, milestones, risk matrix, open issues by severity and spend by month",
    description: SECTIONS,
    params: IdParams,
    response: { schema: recordEnvelope(ProjectSummarySchema), description: "The project's summary." },
    verb: projectSummary,
    async handler(c, { params }) {
      const summary = (await projectSummary({ ctx: serviceContext(c), input: { projectId: params.id } })) as ProjectSummary;
      return reply(summary, `summary of ${summary.name}`);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/overview",
    operationId: "getOrganisationOverview",
    scope: "projects.read",
    tag,
    summary: "Every project's schedule, budget and risk health at a glance, a page at a time",
    description: `Projects in creation order. ${SECTIONS}`,
    query: z.strictObject(pageQuery),
    response: { schema: listEnvelope(ProjectHealthSchema), description: "A page of projects' health.", headers: ["Link"] },
    verb: organisationOverview,
    async handler(c, { query }) {
      const { projects, end } = await organisationOverview({ ctx: serviceContext(c), input: { page: pageRequest(query) } });
      return listReply(c.req.url, { records: projects as ProjectHealth[], hasMore: end !== null, end }, ["project", "projects"]);
    },
  }),
];
