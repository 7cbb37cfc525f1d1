import { Hono, type MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { authRoutes } from "./auth/routes.ts";
import type { AppEnv } from "./env.ts";
import { requestState } from "./http/context.ts";
import { answerError, noEndpoint } from "./http/errors.ts";
import { handlerOf } from "./http/handler.ts";
import { replaysIdempotencyKey } from "./http/headers.ts";
import type { AnyRoute } from "./http/registry.ts";
import { internal } from "./internal.ts";
import { keysOrSession, sessionOnly } from "./middleware/credentials.ts";
import { crossOrigin } from "./middleware/cross-origin.ts";
import { jsonBodyUpTo, MAX_BODY_BYTES, refuseIdempotencyKey } from "./middleware/json-body.ts";
import { logRequests } from "./middleware/log.ts";
import { MCP_RESOURCE_METADATA_PATH, mcpEndpoint, mcpResourceMetadata } from "./mcp/endpoint.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { apiReference } from "./openapi/docs-page.ts";
import { routes as allRoutes } from "./routes/index.ts";

// The Worker's app, composed: the middleware every request passes, in order (request id, log
// line, security headers, CORS, the request's state), then each route of the registry
// (functions/routes/index.ts) with its own middleware (scope, credentials and rate limit, body),
// then the room's endpoints, sign-in, the API reference page, and the answers to no route and to
// an error. What a route is: http/registry.ts; how one runs: http/handler.ts; every route by its
// path: docs/routes.md.

/**
 * The middleware of one route: the scope it needs is noted, for the call's statement to check
 * (403); the caller's credentials (401) and rate limit (429), unless the route is public; an
 * Idempotency-Key a POST does not replay is refused, and the body read within its limit.
 * Validation (400) comes after, in http/handler.ts, which still answers 401 and 403 first.
 */
function middlewareOf(route: AnyRoute): MiddlewareHandler<AppEnv>[] {
  const scope = createMiddleware<AppEnv>(async (c, next) => {
    c.set("scope", route.scope === "public" ? null : route.scope);
    await next();
  });
  const credentials = route.scope === "public" ? [] : [route.auth === "session" ? sessionOnly : keysOrSession, rateLimit];
  const replays = route.method !== "post" || replaysIdempotencyKey(route) || route.scope === "public";
  return [
    scope,
    ...credentials,
    ...(replays ? [] : [refuseIdempotencyKey]),
    ...(route.body ? [jsonBodyUpTo(route.bodyLimit ?? MAX_BODY_BYTES)] : []),
  ];
}

export function createApp(routes: AnyRoute[] = allRoutes) {
  const app = new Hono<AppEnv>();

  app.use("*", requestId(), logRequests, secureHeaders(), crossOrigin, requestState(routes));

  for (const route of routes) {
    app.on(route.method.toUpperCase(), [route.path.replace(/\{(\w+)\}/g, ":$1")], ...middlewareOf(route), handlerOf(route));
  }

  // The MCP server (functions/mcp/): its tool calls run the routes above through this app.
  app.on(["GET", "POST", "DELETE"], "/mcp", mcpEndpoint(app));
  app.get(MCP_RESOURCE_METADATA_PATH, mcpResourceMetadata);
  app.route("/internal", internal);
  app.route("/", authRoutes);
  app.route("/", oauthRoutes);
  // The API reference page (HTML, no key); the console at / is a static asset (wrangler.toml [assets]).
  app.get("/docs", apiReference);

  app.notFound(noEndpoint);
  app.onError(answerError);

  return app;
}
