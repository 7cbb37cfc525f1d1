import { z } from "@hono/zod-openapi";
import { settingsOf } from "../env.ts";
import { defineRoute } from "../http/registry.ts";

/** GET /v1/openapi.json: the document of the registry, for the service's public origin (PUBLIC_ORIGIN). */
export const openApiRoute = defineRoute({
  method: "get",
  path: "/v1/openapi.json",
  operationId: "getOpenApiDocument",
  scope: "public",
  tag: "Meta",
  summary: "The OpenAPI 3.1 document of this API (no key needed)",
  response: {
    schema: z.object({ openapi: z.string().openapi({ example: "3.1.0" }) }),
    description: "The OpenAPI document (every other member as OpenAPI 3.1 defines it).",
  },
  verb: null,
  // The document's builder (and @asteasolutions/zod-to-openapi) is loaded when it is first asked for.
  async handler(c) {
    const { openApiDocument } = await import("../openapi/document.ts");
    return { body: openApiDocument(await c.get("registry")(), settingsOf(c.env).publicOrigin) };
  },
});
