import type { z } from "@hono/zod-openapi";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { DatabaseRefusedError, DatabaseUnavailableError } from "../db/client.ts";
import { DomainError } from "../domain/errors.ts";
import { databaseFor } from "./context.ts";
import { apiReference } from "./docs.ts";
import type { AppEnv } from "./env.ts";
import { statusOf } from "./errors.ts";
import { serialised, stamped } from "./envelope.ts";
import { authRoutes } from "./auth/routes.ts";
import { internal } from "./internal.ts";
import { keysOrSession, sessionOnly } from "./middleware/credentials.ts";
import { EXPOSED_HEADERS, replaysIdempotencyKey, RESPONSE_HEADERS } from "./headers.ts";
import { jsonBodyUpTo, MAX_BODY_BYTES, refuseIdempotencyKey } from "./middleware/json-body.ts";
import { logRequests } from "./middleware/log.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { refuse } from "./middleware/refuse.ts";
import type { AnyRoute } from "./registry.ts";
import { routes as allRoutes } from "./routes/index.ts";
import { validationError } from "./validation.ts";

export function sendError(c: Context<AppEnv>, error: DomainError) {
  const status = statusOf(error);
  if (status === 401) c.header(RESPONSE_HEADERS.wwwAuthenticate.name, 'Bearer realm="opsroom"');
  // Unavailable is momentary (the database out of reach): a client may retry after a second.
  if (status === 503) c.header(RESPONSE_HEADERS.retryAfter.name, "1");
  return c.json(
    { success: false, version: "v1", message: error.message, error: { code: error.code, ...error.details, requestId: c.get("requestId") } },
    status,
  );
}

/** The query as the validators read it: one value as a string, a repeated one as an array. */
function queryOf(c: Context<AppEnv>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(c.req.queries()).map(([key, values]) => [key, values.length === 1 ? values[0]! : values]));
}

/** Parses one part of the request with its schema; a failure is refused in the API's own terms. */
async function parsed(c: Context<AppEnv>, schema: z.ZodType | undefined, value: () => unknown, target: "param" | "query" | "json"): Promise<unknown> {
  if (!schema) return undefined;
  const input = value();
  // Synchronous: no schema of the API refines asynchronously, and the async path costs promises per field.
  const result = schema.safeParse(input);
  if (!result.success) await refuse(c, validationError(result.error, input, target));
  return result.data;
}

/** An operation that takes no query parameters refuses any, as a list refuses one it does not know. */
async function noQuery(c: Context<AppEnv>): Promise<undefined> {
  const { url } = c.req;
  const start = url.indexOf("?");
  if (start === -1) return undefined;
  const [name] = new URLSearchParams(url.slice(start + 1)).keys();
  if (name !== undefined) await refuse(c, new DomainError("unknown_field", `${name} is not a query parameter this endpoint takes (it takes none)`, { field: name }));
  return undefined;
}

/**
 * The route's handler, after its input is validated: params, query, then body. A 400 the handler
 * decides before asking the database (a bad cursor or If-Match) still answers 401/403 first.
 */
function handlerOf(route: AnyRoute) {
  return async (c: Context<AppEnv>) => {
    const input = {
      params: await parsed(c, route.params, () => c.req.param(), "param"),
      query: route.query ? await parsed(c, route.query, () => queryOf(c), "query") : await noQuery(c),
      body: await parsed(c, route.body, () => c.get("body"), "json"),
    };
    try {
      const answer = await route.handler(c, input);
      for (const [name, value] of Object.entries(answer.headers ?? {})) c.header(name, value);
      const body = serialised(stamped(answer.body as Record<string, unknown>, c.get("changeVersion")));
      return c.body(body, answer.status ?? route.response.status ?? 200, { "content-type": "application/json" });
    } catch (error) {
      if (error instanceof DomainError && statusOf(error) === 400 && c.get("db").queryCount === 0) await refuse(c, error);
      throw error;
    }
  };
}

// Keys travel in the Authorization header, so any origin may call with one. No credentials are
// allowed across origins: the session cookie works from this origin's pages only.
const preflight = cors({
  origin: "*",
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  allowHeaders: ["Authorization", "Content-Type", "If-Match", "Idempotency-Key", "X-Request-Id"],
  exposeHeaders: EXPOSED_HEADERS,
  maxAge: 86400,
});
const EXPOSED = EXPOSED_HEADERS.join(",");

/**
 * CORS: hono's cors() answers the preflights; every other answer gets the two headers it would
 * add (origin "*" and the exposed headers), set on the answer once it is made, as secureHeaders()
 * sets its own. cors() sets them on `c.res` before the handler runs, which makes Hono build a
 * placeholder Response, copy its headers into the handler's, then wrap that Response again and
 * copy them once more: two Responses and every header copied twice, on every call.
 */
const crossOrigin = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method === "OPTIONS") return preflight(c, next);
  await next();
  c.res.headers.set("Access-Control-Allow-Origin", "*");
  c.res.headers.set("Access-Control-Expose-Headers", EXPOSED);
});

export function createApp(routes: AnyRoute[] = allRoutes) {
  const app = new Hono<AppEnv>();

  app.use(
    "*",
    requestId(),
    logRequests,
    secureHeaders(),
    crossOrigin,
    createMiddleware<AppEnv>(async (c, next) => {
      // One handle per request: it counts the request's statements (the log line, and the refusal
      // order above). It holds no connection: each statement is one HTTP request.
      c.set("db", databaseFor(c.env));
      c.set("routes", routes);
      await next();
    }),
  );

  for (const route of routes) {
    const scope = createMiddleware<AppEnv>(async (c, next) => {
      c.set("scope", route.scope === "public" ? null : route.scope);
      await next();
    });
    const credentials = route.scope === "public" ? [] : [route.auth === "session" ? sessionOnly : keysOrSession, rateLimit];
    const replays = route.method !== "post" || replaysIdempotencyKey(route) || route.scope === "public";
    const middleware: MiddlewareHandler<AppEnv>[] = [
      scope,
      ...credentials,
      ...(replays ? [] : [refuseIdempotencyKey]),
      ...(route.body ? [jsonBodyUpTo(route.bodyLimit ?? MAX_BODY_BYTES)] : []),
    ];
    app.on(route.method.toUpperCase(), [route.path.replace(/\{(\w+)\}/g, ":$1")], ...middleware, handlerOf(route));
  }

  app.route("/internal", internal);
  app.route("/", authRoutes);
  // The API reference page (HTML, no key); the console at / is a static asset (wrangler.toml [assets]).
  app.get("/docs", apiReference);

  app.notFound((c) => sendError(c, new DomainError("not_found", `no endpoint ${c.req.method} ${new URL(c.req.url).pathname}`)));

  app.onError((error, c) => {
    if (error instanceof DomainError) return sendError(c, error);
    if (error instanceof DatabaseUnavailableError) {
      console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), message: "database unavailable", cause: String(error.cause) }));
      // Nothing is ever half-written, but a statement whose connection dropped after it was sent
      // may have committed whole (test/protection/database-failures.test.ts): do not promise less.
      return sendError(
        c,
        new DomainError("unavailable", "the database is unavailable; retry shortly (nothing is half-written; a write cut off in flight may have been made, so retry a create with the same Idempotency-Key)"),
      );
    }
    if (error instanceof DatabaseRefusedError) {
      // The configuration or a bug of ours, not an outage: the cause is logged, never answered.
      console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), message: "database refused the request", cause: String(error.cause) }));
      return sendError(c, new DomainError("internal_error", "unexpected error; nothing was changed"));
    }
    if (error instanceof HTTPException && error.status === 400) return sendError(c, new DomainError("invalid_json", "the body is not valid JSON"));
    console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), message: String(error), stack: error.stack }));
    return sendError(c, new DomainError("internal_error", "unexpected error; nothing was changed"));
  });

  return app;
}
