import { Hono, type Handler, type MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "./env.ts";
import { requestState } from "./http/context.ts";
import { answerError, noEndpoint } from "./http/errors.ts";
import { builtOnce } from "./http/built-once.ts";
import { lazyPart } from "./http/lazy-part.ts";
import { keysOrSession, sessionOnly } from "./middleware/credentials.ts";
import { crossOrigin } from "./middleware/cross-origin.ts";
import { jsonBodyUpTo, refuseIdempotencyKey } from "./middleware/json-body.ts";
import { logRequests } from "./middleware/log.ts";
import { MCP_RESOURCE_METADATA_PATH, mcpEndpoint, mcpResourceMetadata } from "./mcp/endpoint.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { AUTHORIZATION_SERVER_PATH, PROTECTED_RESOURCE_PATH } from "./oauth/metadata.ts";
import { loadRouteModule, loadRoutes } from "./routes/index.ts";
import { ROUTE_MANIFEST } from "./routes/manifest.ts";
import type { RouteMount } from "./routes/mount.ts";

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
  ];
}

/**
 * The route's handler (http/handler.ts), built when a request first reaches it: its module of
 * functions/routes/ is loaded then, and with it the route's schemas and its service's statements.
 */
function handlerAt(mount: RouteMount): Handler<AppEnv> {
  const handler = builtOnce(async () => {
    const route = (await loadRouteModule(mount.module)).find((r) => r.operationId === mount.operationId);
    if (!route) throw new Error(`${mount.operationId} is not in routes/${mount.module}: run npm run routes:generate`);
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
    app.on(route.method.toUpperCase(), [route.path.replace(/\{(\w+)\}/g, ":$1")], ...middlewareOf(route), handlerAt(route));
  }

  // The MCP server (functions/mcp/): its tool calls run the routes above through this app.
  app.on(["GET", "POST", "DELETE"], "/mcp", mcpEndpoint(app));
  app.get(MCP_RESOURCE_METADATA_PATH, mcpResourceMetadata);
  // The parts only some requests need, each loaded by the first request to one of its paths: the
  // room's endpoints, sign-in and sign-up (better-auth), the OAuth authorization server.
  app.all(
    "/internal/*",
    lazyPart("/internal", async () => (await import("./internal.ts")).internal),
  );
  app.all(
    "/auth/*",
    lazyPart("/", async () => (await import("./auth/routes.ts")).authRoutes),
  );
  const oauth = lazyPart("/", async () => (await import("./oauth/routes.ts")).oauthRoutes);
  app.all("/oauth/*", oauth);
  app.get(AUTHORIZATION_SERVER_PATH, oauth);
  app.get(PROTECTED_RESOURCE_PATH, oauth);
  // Notification mails' unsubscribe links (functions/mail/unsubscribe.ts), loaded when first followed.
  app.get("/unsubscribe", async (c) => (await import("./mail/unsubscribe.ts")).unsubscribePage(c));
  app.post("/unsubscribe", async (c) => (await import("./mail/unsubscribe.ts")).unsubscribeNow(c));
  // The API reference page (HTML, no key); the console at / is a static asset (wrangler.toml [assets]).
  // Scalar is loaded when the page is first asked for.
  app.get("/docs", async (c) => (await import("./openapi/docs-page.ts")).apiReference(c));

  app.notFound(noEndpoint);
  app.onError(answerError);

  return app;
}
