import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { addOperationExamples } from "../lib/openapi-examples.ts";
import { defineRoute, toOpenApiRoute, type AnyRoute } from "../registry.ts";
import { apiGuide } from "./openapi-guide.ts";

type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

const documents = new WeakMap<object, OpenApiDocument>();

/** The OpenAPI 3.1 document, generated from the route registry once per isolate. */
export function openApiDocument(routes: AnyRoute[], serverUrl: string): OpenApiDocument {
  let document = documents.get(routes);
  if (!document) {
    const app = new OpenAPIHono<AppEnv>();
    for (const route of routes) app.openAPIRegistry.registerPath(toOpenApiRoute(route));
    app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
      type: "http",
      scheme: "bearer",
      description: "An opsroom API key (ops_...). The scopes listed on an operation are the ones it needs.",
    });
    app.openAPIRegistry.registerComponent("securitySchemes", "sessionCookie", {
      type: "apiKey",
      in: "cookie",
      name: "opsroom.session_token",
      description:
        "A signed-in person's session (sign in at /sign-in; __Secure-opsroom.session_token over https). Its scopes are those of the person's role; a write must come from this origin.",
    });
    const generated = app.getOpenAPI31Document({
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
        { name: "Risks", description: "The risks of a project: probability, impact, owner and mitigation." },
        { name: "Issues", description: "The issues of a project: severity, reporter, assignee and resolution." },
        { name: "Financial entries", description: "Costs, invoices, payments and adjustments of a project, and its finances." },
        { name: "Realtime", description: "Catching up on events, and tokens for the realtime room." },
        { name: "Webhooks", description: "Endpoints that receive every visible event, signed per Standard Webhooks." },
        {
          name: "Settings",
          description: "The settings area of people signed in (cookie auth; API keys are answered 401): their session, members, invitations and API keys.",
        },
        { name: "Meta", description: "The API's own description." },
      ],
    });
    addOperationExamples(generated as Parameters<typeof addOperationExamples>[0]);
    document = generated;
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
  response: { schema: z.object({ openapi: z.string().openapi({ example: "3.1.0" }) }), description: "The OpenAPI document (every other member as OpenAPI 3.1 defines it)." },
  handler(c) {
    return { body: openApiDocument(c.var.routes, new URL(c.req.url).origin) };
  },
});
