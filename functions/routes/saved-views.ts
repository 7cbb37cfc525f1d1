import { z } from "@hono/zod-openapi";
import * as views from "../../services/saved-views.ts";
import { serviceContext } from "../http/context.ts";
import { recordEnvelope, reply, wholeListEnvelope, wholeListReply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { Uuid } from "../schemas/common.ts";
import { CreateViewSchema, SavedViewSchema, UpdateViewSchema, ViewListQuery } from "../schemas/saved-views.ts";

// The settings area (docs/people.md "Saved views"), a person's saved views: any member saves their
// own, sees their own and those shared, and changes or deletes only their own. A session only.

const IdParams = z.object({ id: Uuid.openapi({ description: "The view's id (GET /v1/settings/views)." }) });

const tag = "Settings";

export const savedViewRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/settings/views",
    operationId: "listViews",
    auth: "session",
    scope: null,
    tag,
    summary: "Your saved views and those shared in the organisation",
    query: ViewListQuery,
    response: { schema: wholeListEnvelope(SavedViewSchema), description: "Views in creation order." },
    verb: views.listViews,
    async handler(c, { query }) {
      return wholeListReply(await views.listViews({ ctx: serviceContext(c), input: { resource: query.resource } }), ["view", "views"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/settings/views",
    operationId: "createView",
    auth: "session",
    scope: null,
    tag,
    summary: "Save a view of a list (its query string), yours; shared: every member sees it",
    body: CreateViewSchema,
    errors: ["conflict"],
    response: { status: 201, schema: recordEnvelope(SavedViewSchema), description: "The view." },
    verb: views.createView,
    async handler(c, { body }) {
      return reply(await views.createView({ ctx: serviceContext(c), input: body }), "view saved");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/settings/views/{id}",
    operationId: "updateView",
    auth: "session",
    scope: null,
    tag,
    summary: "Change a view of yours (its name, query or sharing)",
    params: IdParams,
    body: UpdateViewSchema,
    errors: ["insufficient_role", "conflict"],
    response: { schema: recordEnvelope(SavedViewSchema), description: "The view as changed." },
    verb: views.updateView,
    async handler(c, { params, body }) {
      return reply(await views.updateView({ ctx: serviceContext(c), input: { id: params.id, values: body } }), "view changed");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/settings/views/{id}",
    operationId: "deleteView",
    auth: "session",
    scope: null,
    tag,
    summary: "Delete a view of yours",
    params: IdParams,
    errors: ["insufficient_role"],
    response: { schema: recordEnvelope(SavedViewSchema), description: "The view as it was." },
    verb: views.deleteView,
    async handler(c, { params }) {
      return reply(await views.deleteView({ ctx: serviceContext(c), input: { id: params.id } }), "view deleted");
    },
  }),
];
