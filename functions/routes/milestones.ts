import { createMilestone, deleteMilestone, getMilestone, listMilestones, updateMilestone } from "../../db/queries/milestones.ts";
import { notFound } from "../../db/queries/outcomes.ts";
import { pageRequest } from "../../db/queries/paging.ts";
import { listEnvelope, recordEnvelope, sendList, sendRecord, sendWrite } from "../envelope.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { CreateMilestoneSchema, ListMilestonesQuery, MilestoneSchema, UpdateMilestoneSchema } from "../schemas/milestones.ts";

const tag = "Milestones";

export const milestoneRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/projects/{id}/milestones",
    operationId: "listMilestones",
    scope: "projects.read",
    tag,
    summary: "List a project's milestones",
    params: IdParams,
    query: ListMilestonesQuery,
    response: { schema: listEnvelope(MilestoneSchema), description: "A page of the project's milestones." },
    async handler(c, { params, query }) {
      const { limit, cursor, ...filters } = query;
      const page = await listMilestones(c.var.db, c.var.actor, params.id, pageRequest({ limit, cursor }), filters);
      return sendList(c, page, ["milestone", "milestones"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/projects/{id}/milestones",
    operationId: "createMilestone",
    scope: "projects.manage",
    tag,
    summary: "Add a milestone to a project (name and dueDate are required)",
    params: IdParams,
    body: CreateMilestoneSchema,
    response: { status: 201, schema: recordEnvelope(MilestoneSchema), description: "The added milestone." },
    async handler(c, { params, body }) {
      return sendWrite(c, await createMilestone(c.var.db, c.var.actor, { ...body, projectId: params.id }, c.var.idempotency), "milestone created", 201);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/milestones/{id}",
    operationId: "getMilestone",
    scope: "projects.read",
    tag,
    summary: "Fetch one milestone",
    params: IdParams,
    response: { schema: recordEnvelope(MilestoneSchema), description: "The milestone." },
    async handler(c, { params }) {
      const record = await getMilestone(c.var.db, c.var.actor, params.id);
      if (!record) throw notFound("milestone");
      return sendRecord(c, record, "milestone");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/milestones/{id}",
    operationId: "updateMilestone",
    scope: "projects.manage",
    tag,
    summary: "Change a milestone",
    params: IdParams,
    body: UpdateMilestoneSchema,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(MilestoneSchema), description: "The changed milestone." },
    async handler(c, { params, body }) {
      const result = await updateMilestone(c.var.db, c.var.actor, params.id, body, parseIfMatch(c.req.header("if-match")));
      return sendWrite(c, result, result.event ? "milestone updated" : "milestone unchanged");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/milestones/{id}",
    operationId: "deleteMilestone",
    scope: "projects.manage",
    tag,
    summary: "Remove a milestone that no task points at",
    params: IdParams,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(MilestoneSchema), description: "The milestone as it was before removal." },
    async handler(c, { params }) {
      return sendWrite(c, await deleteMilestone(c.var.db, c.var.actor, params.id, parseIfMatch(c.req.header("if-match"))), "milestone deleted");
    },
  }),
];

