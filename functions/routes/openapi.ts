import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { addOperationExamples } from "../lib/openapi-examples.ts";
import { defineRoute, toOpenApiRoute, type AnyRoute } from "../registry.ts";
import { apiGuide } from "./openapi-guide.ts";

const documents = new WeakMap<object, unknown>();

/** The OpenAPI 3.1 document, generated from the route registry once per isolate. */
export function openApiDocument(routes: AnyRoute[], serverUrl: string) {
  let document = documents.get(routes);
  if (!document) {
    const app = new OpenAPIHono<AppEnv>();
    for (const route of routes) app.openAPIRegistry.registerPath(toOpenApiRoute(route));
    app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
      type: "http",
      scheme: "bearer",
      description: "An opsroom API key (ops_...). The scopes listed on an operation are the ones it needs.",
    });
    document = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "opsroom API",
        version: "v1",
        // The envelope, errors, scopes and event catalogue: the introduction GET /docs shows.
        description: apiGuide(routes),
        // openapi3-ts types lack 3.1's license.identifier; the document itself is 3.1.
        license: { name: "Proprietary", identifier: "LicenseRef-opsroom" } as { name: string },
      },
      servers: [{ url: serverUrl }],
      tags: [
        { name: "Organisation", description: "The key's organisation and self-description." },
        { name: "Projects", description: "Projects: name, budget, dates and status." },
        { name: "Milestones", description: "The milestones of a project." },
        { name: "Tasks", description: "Tasks, their assignees and their workflow." },
        { name: "Personnel", description: "People who may be assigned to tasks." },
        { name: "Realtime", description: "Catching up on events, and tokens for the realtime room." },
        { name: "Webhooks", description: "Endpoints that receive every visible event, signed per Standard Webhooks." },
        { name: "Meta", description: "The API's own description." },
      ],
    });
    addOperationExamples(document as Parameters<typeof addOperationExamples>[0]);
    documents.set(routes, document);
  }
  return document;
}

export const openApiRoute = defineRoute({
  method: "get",
    path: "/v1/openapi.json",
    operationId: "getOpenApiDocument",
  scope: "public",
  tag: "Meta",
  summary: "The OpenAPI 3.1 document of this API (no key needed)",
  response: { schema: z.object({ openapi: z.string().openapi({ example: "3.1.0" }) }).passthrough(), description: "The OpenAPI document." },
  handler(c) {
    return c.json(openApiDocument(c.var.routes, new URL(c.req.url).origin));
  },
});
