import { createRoute, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errorResponses, type ErrorCode } from "./errors.ts";
import type { AppEnv, Operation } from "./env.ts";
import type { Scope } from "./lib/scopes.ts";

type Schema = z.ZodType | undefined;
type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<P extends Schema, Q extends Schema, B extends Schema> {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
}

/**
 * One endpoint, declared once. From this declaration come the validation, the scope check, the
 * `operations` of GET /v1 and the endpoint's OpenAPI entry (including its error responses).
 */
export interface RouteDefinition<P extends Schema = Schema, Q extends Schema = Schema, B extends Schema = Schema> {
  method: "get" | "post" | "patch" | "delete";
  /** OpenAPI-style path: /v1/tasks/{id}. */
  path: `/v1${string}`;
  /** A stable verb-noun name (createTask): the method name in generated clients. */
  operationId: string;
  /** The scope the call needs; null: any valid key; "public": no key at all. */
  scope: Scope | null | "public";
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  response: { status?: 200 | 201 | 202; schema: z.ZodType; description: string };
  /** Errors particular to this endpoint; the common ones are derived from its shape. */
  errors?: ErrorCode[];
  handler(c: Context<AppEnv>, input: RouteInput<P, Q, B>): Response | Promise<Response>;
}

export function defineRoute<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  route: RouteDefinition<P, Q, B>,
): RouteDefinition<P, Q, B> {
  return route;
}

// eslint-style note: the registry holds routes of every input shape.
// biome-ignore lint/suspicious/noExplicitAny: heterogeneous list of routes
export type AnyRoute = RouteDefinition<any, any, any>;

/** The error codes an endpoint can answer with, derived from what it declares. */
export function errorCodesOf(route: AnyRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(["internal_error"]);
  // Every keyed call counts against the key's rate limit (functions/middleware/rate-limit.ts).
  if (route.scope !== "public") ["unauthorized", "invalid_key", "rate_limited", "unavailable"].forEach((c) => codes.add(c as ErrorCode));
  if (route.scope !== "public" && route.scope !== null) codes.add("insufficient_scope");
  if (route.params || route.query) codes.add("invalid_field");
  if (route.query) codes.add("unknown_field");
  if (route.params) codes.add("not_found");
  if (route.body) {
    for (const code of ["missing_field", "invalid_field", "unknown_field", "invalid_json", "payload_too_large", "unsupported_media_type"] as const) {
      codes.add(code);
    }
  }
  for (const code of route.errors ?? []) codes.add(code);
  return [...codes];
}

/** The route as @hono/zod-openapi wants it: request schemas, success and error responses, security. */
export function toOpenApiRoute(route: AnyRoute) {
  const scopes = typeof route.scope === "string" && route.scope !== "public" ? [route.scope] : [];
  return createRoute({
    method: route.method,
    path: route.path,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    operationId: route.operationId,
    security: route.scope === "public" ? [] : [{ bearerAuth: scopes }],
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


export function operationsOf(routes: AnyRoute[]): Operation[] {
  return routes.map((r) => ({
    method: r.method.toUpperCase(),
    path: r.path.replace(/\{(\w+)\}/g, ":$1"),
    scope: r.scope === "public" ? null : r.scope,
    summary: r.summary,
  }));
}
