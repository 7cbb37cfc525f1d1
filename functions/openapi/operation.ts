import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../http/error-schemas.ts";
import { asHeaderObjects, asHeaderParameters, requestHeadersOf, responseHeadersOf } from "../http/headers.ts";
import { errorCodesOf, type AnyRoute } from "../http/registry.ts";

// One route of the registry as an operation of the OpenAPI document: its request schemas, its
// success and error responses (with the headers of each status), and its security.

/** Who may make the call, as an operation without a description of its own says. */
function whoMayCall(route: AnyRoute): string {
  if (route.scope === "public") return "No key needed.";
  if (route.auth === "session") return "A signed-in person's session (the settings area); an API key is answered 401.";
  return route.scope === null
    ? "Any valid key or application access token."
    : `Needs the \`${route.scope}\` scope (a key's, an application's access token's, or a session whose role holds it).`;
}

/** The route as the OpenAPI document wants it: request schemas, success and error responses, security. */
export function toOpenApiRoute(route: AnyRoute) {
  const scopes = typeof route.scope === "string" && route.scope !== "public" ? [route.scope] : [];
  const success = (status: number, description: string) => ({
    description,
    headers: asHeaderObjects(responseHeadersOf(route, status)),
    content: { [route.response.mediaType ?? "application/json"]: { schema: route.response.schema } },
  });
  const requestHeaders = asHeaderParameters(requestHeadersOf(route));
  return createRoute({
    method: route.method,
    path: route.path,
    summary: route.summary,
    description: route.description ?? whoMayCall(route),
    tags: [route.tag],
    operationId: route.operationId,
    security:
      route.scope === "public"
        ? []
        : route.auth === "session"
          ? [{ sessionCookie: [] }]
          : [{ bearerAuth: scopes }, { oauth2: scopes }, { sessionCookie: [] }],
    ...(requestHeaders.length ? { parameters: requestHeaders } : {}),
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.body ? { body: { required: true, content: { "application/json": { schema: route.body } } } } : {}),
      ...(route.fileBody
        ? {
            body: {
              required: true,
              description: route.fileBody.description,
              content: {
                "application/octet-stream": { schema: { type: "string" as const, format: "binary", maxLength: route.fileBody.limit } },
              },
            },
          }
        : {}),
    },
    responses: {
      [route.response.status ?? 200]: success(route.response.status ?? 200, route.response.description),
      ...(route.response.created ? { 201: success(201, route.response.created) } : {}),
      ...errorResponses(errorCodesOf(route), (status) => asHeaderObjects(responseHeadersOf(route, status))),
    },
  });
}
