import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { DatabaseUnavailableError } from "../db/client.ts";
import type { AppEnv } from "./env.ts";
import { ApiError } from "./errors.ts";
import { bearer } from "./middleware/bearer.ts";
import { database } from "./middleware/database.ts";
import { jsonBody } from "./middleware/json-body.ts";
import { logRequests } from "./middleware/log.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { refuse } from "./middleware/refuse.ts";
import { operationsOf, toOpenApiRoute, type AnyRoute } from "./registry.ts";
import { routes as allRoutes } from "./routes/index.ts";
import { validationError } from "./validation.ts";
import { internal } from "./internal.ts";
import { apiReference } from "./docs.ts";

export function sendError(c: Context<AppEnv>, error: ApiError) {
  if (error.status === 401) c.header("WWW-Authenticate", 'Bearer realm="opsroom"');
  return c.json(
    { success: false, version: "v1", message: error.message, error: { code: error.code, ...error.details, requestId: c.var.requestId } },
    error.status,
  );
}

const VALIDATED_INPUT = { param: "params", query: "query", json: "body" } as const;

/**
 * Runs the route's handler with its validated input. A 400 the handler decides before asking the
 * database (a bad cursor or If-Match) still answers 401/403 first, like every refusal.
 */
function handle(route: AnyRoute) {
  return async (c: Context<AppEnv>) => {
    const valid = (target: keyof typeof VALIDATED_INPUT) => (c.req as unknown as { valid(t: string): unknown }).valid(target);
    try {
      return await route.handler(c, {
        params: route.params ? valid("param") : undefined,
        query: route.query ? valid("query") : undefined,
        body: route.body ? valid("json") : undefined,
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 400 && c.var.db.queryCount === 0) await refuse(c, error);
      throw error;
    }
  };
}

export function createApp(routes: AnyRoute[] = allRoutes) {
  const app = new OpenAPIHono<AppEnv>({
    // A schema failure is refused in the API's own terms, after the key and scope are checked.
    defaultHook: async (result, c) => {
      if (result.success) return;
      const input = result.target === "json" ? c.var.body : result.target === "query" ? c.req.query() : c.req.param();
      await refuse(c as Context<AppEnv>, validationError(result.error, input, result.target));
    },
  });
  const operations = operationsOf(routes);

  app.use(
    "*",
    requestId(),
    logRequests,
    secureHeaders(),
    cors({
      // Keys travel in the Authorization header, never in cookies, so any origin may call.
      origin: "*",
      allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
      allowHeaders: ["Authorization", "Content-Type", "If-Match", "Idempotency-Key", "X-Request-Id"],
      exposeHeaders: ["ETag", "Link", "X-Request-Id", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Idempotent-Replayed"],
      maxAge: 86400,
    }),
    database,
    createMiddleware<AppEnv>(async (c, next) => {
      c.set("operations", operations);
      c.set("routes", routes);
      await next();
    }),
  );

  for (const route of routes) {
    const scope = createMiddleware<AppEnv>(async (c, next) => {
      c.set("scope", route.scope === "public" ? null : route.scope);
      await next();
    });
    const middleware = [scope, ...(route.scope === "public" ? [] : [bearer, rateLimit]), ...(route.body ? [jsonBody] : [])];
    // Responses are typed by the registry's schemas, not by Hono's per-route generics.
    app.openapi({ ...toOpenApiRoute(route), middleware }, handle(route) as never);
  }

  app.route("/internal", internal);
  // The API reference page (HTML, no key); the console at / is a static asset (wrangler.toml [assets]).
  app.get("/docs", apiReference);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An opsroom API key (ops_...). The scopes listed on an operation are the ones it needs.",
  });

  app.notFound((c) => sendError(c, new ApiError("not_found", `no endpoint ${c.req.method} ${new URL(c.req.url).pathname}`)));

  app.onError((error, c) => {
    if (error instanceof ApiError) return sendError(c, error);
    if (error instanceof DatabaseUnavailableError) {
      console.error(JSON.stringify({ level: "error", requestId: c.var.requestId, message: "database unavailable", cause: String(error.cause) }));
      // Nothing is ever half-written, but a statement whose connection dropped after it was sent
      // may have committed whole (test/protection/database-failures.test.ts): do not promise less.
      return sendError(
        c,
        new ApiError("unavailable", "the database is unavailable; retry shortly (nothing is half-written; a write cut off in flight may have been made, so retry a create with the same Idempotency-Key)"),
      );
    }
    if (error instanceof HTTPException && error.status === 400) {
      return sendError(c, new ApiError("invalid_json", "the body is not valid JSON"));
    }
    console.error(JSON.stringify({ level: "error", requestId: c.var.requestId, message: String(error), stack: error.stack }));
    return sendError(c, new ApiError("internal_error", "unexpected error; nothing was changed"));
  });

  return app;
}

export type App = ReturnType<typeof createApp>;
