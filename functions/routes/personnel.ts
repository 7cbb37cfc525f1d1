import { notFound } from "../../db/queries/outcomes.ts";
import { pageRequest } from "../../db/queries/paging.ts";
import { createPersonnel, getPerson, listPersonnel, updatePerson } from "../../db/queries/personnel.ts";
import { listEnvelope, recordEnvelope, sendList, sendRecord, sendWrite } from "../envelope.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { CreatePersonSchema, ListPersonnelQuery, PersonSchema, UpdatePersonSchema } from "../schemas/personnel.ts";

const tag = "Personnel";

export const personnelRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/personnel",
    operationId: "listPersonnel",
    scope: "organisation.read",
    tag,
    summary: "List the people who may be assigned to tasks",
    query: ListPersonnelQuery,
    response: { schema: listEnvelope(PersonSchema), description: "A page of people in creation order." },
    async handler(c, { query }) {
      const { limit, cursor, ...filters } = query;
      return sendList(c, await listPersonnel(c.var.db, c.var.actor, pageRequest({ limit, cursor }), filters), ["person", "people"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/personnel",
    operationId: "createPerson",
    scope: "organisation.manage",
    tag,
    summary: "Add a person (name and email are required; email is unique in the organisation)",
    body: CreatePersonSchema,
    errors: ["conflict"],
    response: { status: 201, schema: recordEnvelope(PersonSchema), description: "The added person." },
    async handler(c, { body }) {
      return sendWrite(c, await createPersonnel(c.var.db, c.var.actor, body, c.var.idempotency), "person created", 201);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/personnel/{id}",
    operationId: "getPerson",
    scope: "organisation.read",
    tag,
    summary: "Fetch one person",
    params: IdParams,
    response: { schema: recordEnvelope(PersonSchema), description: "The person." },
    async handler(c, { params }) {
      const record = await getPerson(c.var.db, c.var.actor, params.id);
      if (!record) throw notFound("person");
      return sendRecord(c, record, "person");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/personnel/{id}",
    operationId: "updatePerson",
    scope: "organisation.manage",
    tag,
    summary: "Change a person; active=false stops new assignments",
    params: IdParams,
    body: UpdatePersonSchema,
    errors: ["conflict", "precondition_failed"],
    response: { schema: recordEnvelope(PersonSchema), description: "The changed person." },
    async handler(c, { params, body }) {
      const result = await updatePerson(c.var.db, c.var.actor, params.id, body, parseIfMatch(c.req.header("if-match")));
      return sendWrite(c, result, result.event ? "person updated" : "person unchanged");
    },
  }),
];
