import { Hono, type Handler, type MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { ENTRY_POINTS, honoPath, type EntryPart, type EntryPoint } from "./entry-points.ts";
import type { AppEnv } from "./env.ts";
import { builtOnce } from "./http/built-once.ts";
import { requestState } from "./http/context.ts";
import { answerError, noEndpoint } from "./http/errors.ts";
import { lazyPart } from "./http/lazy-part.ts";
import { mcpEndpoint } from "./mcp/endpoint.ts";
import { answerBudget, answersLarge } from "./middleware/answer-budget.ts";
import { keysOrSession, sessionOnly } from "./middleware/credentials.ts";
import { crossOrigin } from "./middleware/cross-origin.ts";
import { jsonBodyUpTo, refuseIdempotencyKey } from "./middleware/json-body.ts";
import { logRequests } from "./middleware/log.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { loadRouteModule, loadRoutes } from "./routes/index.ts";
import { ROUTE_MANIFEST } from "./routes/manifest.ts";
import type { RouteMount } from "./routes/mount.ts";

// The Worker's app, composed: the middleware every request passes, in order (request id, log
// line, security headers, CORS, the request's state), then each route of the registry
// (functions/routes/index.ts) with its own middleware (scope, credentials and rate limit, body),
// then every other entry point (functions/entry-points.ts), and the answers to no route and to
// an error. What a route is: http/registry.ts; how one runs: http/handler.ts; every route by its
// path: docs/routes.md.

/**
 * The middleware of one route: the scope it needs is noted, for the call's statement to check
 * (403); the caller's credentials (401) and rate limit (429), unless the route is public; an
 * Idempotency-Key a POST does not replay is refused, and the body read within its limit.
 * Validation (400) comes after, in http/handler.ts, which still answers 401 and 403 first.
 */
function middlewareOf(route: RouteMount): MiddlewareHandler<AppEnv>[] {
  const scope = createMiddleware<AppEnv>(async (c, next) => {
    c.set("scope", route.scope === "public" ? null : route.scope);
    await next();
  });
  const credentials = route.scope === "public" ? [] : [route.auth === "session" ? sessionOnly : keysOrSession, rateLimit];
  const replays = route.method !== "post" || route.replaysIdempotencyKey || route.scope === "public";
  return [
    scope,
    ...credentials,
    ...(replays ? [] : [refuseIdempotencyKey]),
    ...(route.bodyLimit === null ? [] : [jsonBodyUpTo(route.bodyLimit)]),
    ...(answersLarge(route.operationId) ? [answerBudget] : []),
  ];
}

/**
 * The route's handler (http/handler.ts), built when a request first reaches it: its module of
 * functions/routes/ is loaded then, and with it the route's schemas and its service's statements.
 */
function handlerAt(mount: RouteMount): Handler<AppEnv> {
  const handler = builtOnce(async () => {
    const route = (await loadRouteModule(mount.module)).find((r) => r.operationId === mount.operationId);
    if (!route) throw new Error(`${mount.operationId} is not in routes/${mount.module}: run npm run generate`);
    return (await import("./http/handler.ts")).handlerOf(route);
  });
  return async (c) => {
    c.set("registry", loadRoutes);
    return (await handler())(c);
  };
}

export function createApp() {
  const app = new Hono<AppEnv>();

  app.use("*", requestId(), logRequests, secureHeaders(), crossOrigin, requestState);

  for (const route of ROUTE_MANIFEST) {
    app.on(route.method.toUpperCase(), [honoPath(route.path)], ...middlewareOf(route), handlerAt(route));
  }

  // Every other entry point (functions/entry-points.ts), on the part that answers it. The MCP
  // server's tool calls run the routes above through this app. The other parts are loaded by the
  // first request to one of their paths: the OAuth authorization server, sign-in and sign-up
  // (better-auth), the room's endpoints, the API reference page (Scalar). The console at / is a
  // static asset (wrangler.toml [assets]).
  const parts: Record<EntryPart, Handler<AppEnv>> = {
    mcp: mcpEndpoint(app),
    oauth: lazyPart("/", async () => (await import("./oauth/routes.ts")).oauthRoutes),
    auth: lazyPart("/", async () => (await import("./auth/routes.ts")).authRoutes),
    internal: lazyPart("/", async () => (await import("./internal.ts")).internal),
    mail: lazyPart("/", async () => (await import("./mail/unsubscribe.ts")).unsubscribeRoutes),
    docs: async (c) => (await import("./openapi/docs-page.ts")).apiReference(c),
  };
  for (const entry of Object.values(ENTRY_POINTS) as EntryPoint[]) app.on([...entry.methods], honoPath(entry.path), parts[entry.part]);

  app.notFound(noEndpoint);
  app.onError(answerError);

  return app;
}
