import { createRoute, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ErrorCode } from "../domain/errors.ts";
import type { Scope } from "../domain/scopes.ts";
import type { AppEnv } from "./env.ts";
import { errorResponses } from "./errors.ts";

type Schema = z.ZodType | undefined;
export type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<P extends Schema, Q extends Schema, B extends Schema> {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
}

/** An envelope as a handler builds it: changeVersion is stamped from what the call observed. */
type Unstamped<Body> = Body extends { changeVersion: number } ? Omit<Body, "changeVersion"> & { changeVersion?: number } : Body;

/** A handler's answer: the body its declared response schema takes, and any headers to send with it. */
export interface Reply<R extends z.ZodType> {
  body: Unstamped<z.input<R>>;
  headers?: Record<string, string>;
}

/**
 * One endpoint, declared once. From this declaration come the validation, the scope check, the
 * `operations` of GET /v1, the endpoint's OpenAPI entry (with its error responses), and the check
 * the tests make of every answer. The handler's reply is typed by the declared response schema, so
 * an answer off the document does not compile.
 */
export interface RouteDefinition<P extends Schema = Schema, Q extends Schema = Schema, B extends Schema = Schema, R extends z.ZodType = z.ZodType> {
  method: "get" | "post" | "patch" | "delete";
  /** OpenAPI-style path: /v1/tasks/{id}. */
  path: `/v1${string}`;
  /** A stable verb-noun name (createTask): the method name in generated clients. */
  operationId: string;
  /** The scope the call needs; null: any valid key; "public": no key at all. */
  scope: Scope | null | "public";
  /**
   * "session": a signed-in person only (the settings area, /v1/settings/*); an API key is answered
   * 401. Default: an API key, or a signed-in person (with the scopes of their role).
   */
  auth?: "session";
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  response: { status?: 200 | 201 | 202; schema: R; description: string };
  /** Errors particular to this endpoint; the common ones are derived from its shape. */
  errors?: ErrorCode[];
  handler(c: Context<AppEnv>, input: RouteInput<P, Q, B>): Reply<R> | Promise<Reply<R>>;
}

export function defineRoute<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined, R extends z.ZodType = z.ZodType>(
  route: RouteDefinition<P, Q, B, R>,
): RouteDefinition<P, Q, B, R> {
  return route;
}

// The registry holds routes of every input and answer shape; each was checked when it was defined.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous list of typed routes
export type AnyRoute = RouteDefinition<any, any, any, any>;

/** The error codes an endpoint can answer with, derived from what it declares. */
export function errorCodesOf(route: AnyRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(["internal_error"]);
  // Every keyed call counts against the key's rate limit (functions/middleware/rate-limit.ts).
  if (route.scope !== "public") for (const code of ["unauthorized", "invalid_key", "rate_limited", "unavailable"] as const) codes.add(code);
  if (route.scope !== "public" && route.scope !== null) codes.add("insufficient_scope");
  // A write may come with the session cookie, which must come from this origin.
  if (route.scope !== "public" && route.method !== "get") codes.add("cross_site_request");
  if (route.auth === "session") codes.delete("invalid_key");
  if (route.params || route.query) codes.add("invalid_field");
  if (route.query) codes.add("unknown_field");
  if (route.params) codes.add("not_found");
  if (route.body) {
    for (const code of ["missing_field", "invalid_field", "unknown_field", "invalid_json", "payload_too_large", "unsupported_media_type"] as const) codes.add(code);
  }
  for (const code of route.errors ?? []) codes.add(code);
  return [...codes];
}

/** The route as the OpenAPI document wants it: request schemas, success and error responses, security. */
export function toOpenApiRoute(route: AnyRoute) {
  const scopes = typeof route.scope === "string" && route.scope !== "public" ? [route.scope] : [];
  return createRoute({
    method: route.method,
    path: route.path,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    operationId: route.operationId,
    security: route.scope === "public" ? [] : route.auth === "session" ? [{ sessionCookie: [] }] : [{ bearerAuth: scopes }, { sessionCookie: [] }],
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.body ? { body: { required: true, content: { "application/json": { schema: route.body } } } } : {}),
    },
    responses: {
      [route.response.status ?? 200]: {
        description: route.response.description,
        content: { "application/json": { schema: route.response.schema } },
      },
      ...errorResponses(errorCodesOf(route)),
    },
  });
}

export interface Operation {
  method: string;
  path: string;
  scope: Scope | null;
  summary: string;
}

const operationLists = { withSettings: new WeakMap<AnyRoute[], Operation[]>(), forKeys: new WeakMap<AnyRoute[], Operation[]>() };

/**
 * The operations a caller can use, as GET /v1 lists them: method, path (:id style), scope,
 * summary. A key's list leaves out the settings area, which answers keys 401.
 */
export function operationsOf(routes: AnyRoute[], caller: "key" | "person"): Operation[] {
  const lists = caller === "key" ? operationLists.forKeys : operationLists.withSettings;
  let operations = lists.get(routes);
  if (!operations) {
    operations = routes.filter((r) => caller === "person" || r.auth !== "session").map((r) => ({
      method: r.method.toUpperCase(),
      path: r.path.replace(/\{(\w+)\}/g, ":$1"),
      scope: r.scope === "public" ? null : r.scope,
      summary: r.summary,
    }));
    lists.set(routes, operations);
  }
  return operations;
}

/** The route serving `method` `path` (a request's own path, /v1/tasks/0190...), or undefined. */
export function routeFor(routes: AnyRoute[], method: string, path: string): AnyRoute | undefined {
  return routes.find((route) => route.method === method.toLowerCase() && new RegExp(`^${route.path.replace(/\{\w+\}/g, "[^/]+")}$`).test(path));
}
