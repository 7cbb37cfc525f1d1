import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ErrorCode } from "../../domain/errors.ts";
import { JsonText } from "../../domain/json-text.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { BatchOperation } from "../../services/batch.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { AppEnv } from "../env.ts";
import type { ResponseHeader } from "./headers.ts";

type Schema = z.ZodType | undefined;
export type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<P extends Schema, Q extends Schema, B extends Schema> {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
}

/** An envelope as a handler builds it: changeVersion is stamped from what the call observed. */
type Unstamped<Body> = Body extends { changeVersion: number } ? Omit<Body, "changeVersion"> & { changeVersion?: number } : Body;

/** A top-level field of an answer may be JSON text the database built, of the field's type (domain/json-text.ts). */
type OrJsonText<Body> = Body extends object ? { [K in keyof Body]: Body[K] | JsonText<Body[K]> } : Body;

/** A handler's answer: the body its declared response schema takes, and any headers to send with it. */
export type Reply<R extends z.ZodType> =
  | {
      body: OrJsonText<Unstamped<z.input<R>>>;
      headers?: Record<string, string>;
      /** When the route answers more than one success status (an upsert: 201 created, 200 changed). */
      status?: 200 | 201;
    }
  | {
      /** A route whose response declares a mediaType streams it: lines of its schema (NDJSON). */
      stream: ReadableStream<Uint8Array>;
      headers?: Record<string, string>;
    };

/**
 * A create, change or delete as POST /v1/batch runs it: the same service verb the route's handler
 * calls, on the context it is handed, with the route's validated input.
 */
export interface Batchable<P extends Schema, B extends Schema> {
  /** What the operation answers when it succeeds (an upsert answers 201 when it creates). */
  status: 200 | 201;
  /** It creates a record whose id later operations may name ($ref.id). */
  creates: boolean;
  /** Its record's id is known only once it has run (PUT by external id): no ref may name it. */
  idUnknownBefore?: boolean;
  resource: BatchOperation["resource"];
  run(ctx: ServiceContext, input: RouteInput<P, undefined, B>, ifMatch: number | null): ReturnType<BatchOperation["run"]>;
}

/** A service verb, as a route names the one it runs: a function of `{ ctx, input }` (services/). */
export type ServiceVerb = (call: never) => unknown;

/**
 * One endpoint, declared once. From this declaration come the validation, the scope check, the
 * `operations` of GET /v1, the endpoint's OpenAPI entry (with its error responses), and the check
 * the tests make of every answer. The handler's reply is typed by the declared response schema, so
 * an answer off the document does not compile.
 */
export interface RouteDefinition<
  P extends Schema = Schema,
  Q extends Schema = Schema,
  B extends Schema = Schema,
  R extends z.ZodType = z.ZodType,
> {
  method: "get" | "post" | "put" | "patch" | "delete";
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
  /**
   * true: a person whose address is unconfirmed may make this call even where the organisation
   * requires it confirmed (who they are; acting for another organisation): its statement's caller
   * is `anyAddress` (db/statements/engine/caller.ts). Every other call of theirs there is 403 email_unverified.
   */
  anyAddress?: true;
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  response: {
    status?: 200 | 201 | 202;
    schema: R;
    description: string;
    /** A second success: an upsert answers 201 when it created the record (with the same schema). */
    created?: string;
    /** The headers a success carries beyond those of every answer (functions/http/headers.ts). */
    headers?: ResponseHeader[];
    /**
     * Not a JSON envelope: a stream of `schema` values, one per line (the audit log's export), or
     * a file's bytes (an attachment's download; its own Content-Type goes in the reply's headers).
     */
    mediaType?: "application/x-ndjson" | "application/octet-stream";
  };
  /** Largest body accepted, in bytes; default 64 KiB. */
  bodyLimit?: number;
  /**
   * The body is a file's bytes (application/octet-stream, an attachment's upload), at most `limit`:
   * no JSON is read, and the handler streams c.req.raw.body itself.
   */
  fileBody?: { limit: number; description: string };
  /**
   * false: not an MCP tool, though its answer is JSON (a multipart upload's steps: an agent cannot
   * send the parts, which are bytes; attach<Record>FromUrl takes their place).
   */
  tool?: false;
  /** Set on creates, changes and deletes of records: how POST /v1/batch runs it. */
  batch?: Batchable<P, B>;
  /** Errors particular to this endpoint; the common ones are derived from its shape. */
  errors?: ErrorCode[];
  /**
   * The service verb the handler runs (services/), or null for an answer the Worker makes alone
   * (the OpenAPI document). docs/routes.md names it beside the route, with the statements it runs.
   */
  verb: ServiceVerb | null;
  handler(c: Context<AppEnv>, input: RouteInput<P, Q, B>): Reply<R> | Promise<Reply<R>>;
}

export function defineRoute<
  P extends Schema = undefined,
  Q extends Schema = undefined,
  B extends Schema = undefined,
  R extends z.ZodType = z.ZodType,
>(route: RouteDefinition<P, Q, B, R>): RouteDefinition<P, Q, B, R> {
  return route;
}

// The registry holds routes of every input and answer shape; each was checked when it was defined.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous list of typed routes
export type AnyRoute = RouteDefinition<any, any, any, any>;

/** The route's query has a parameter that must be given. */
function requiresQuery(route: AnyRoute): boolean {
  const shape: Record<string, z.ZodType> = (route.query as { shape?: Record<string, z.ZodType> } | undefined)?.shape ?? {};
  return Object.values(shape).some((parameter) => !parameter.safeParse(undefined).success);
}

/** The error codes an endpoint can answer with, derived from what it declares. */
export function errorCodesOf(route: AnyRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(["internal_error"]);
  // Every keyed call counts against the key's rate limit (functions/middleware/rate-limit.ts).
  if (route.scope !== "public") for (const code of ["unauthorized", "invalid_key", "rate_limited", "unavailable"] as const) codes.add(code);
  if (route.scope !== "public" && route.scope !== null) codes.add("insufficient_scope");
  // A person (or an application acting for one) whose address the organisation requires confirmed.
  if (route.scope !== "public" && !route.anyAddress) codes.add("email_unverified");
  // A write may come with the session cookie, which must come from this origin.
  if (route.scope !== "public" && route.method !== "get") codes.add("cross_site_request");
  if (route.auth === "session") codes.delete("invalid_key");
  if (route.params || route.query) codes.add("invalid_field");
  // A query parameter the route requires (an upload's name, size and sha256) may be left out.
  if (requiresQuery(route)) codes.add("missing_field");
  // Every operation refuses query parameters it does not take (one with none refuses any).
  codes.add("unknown_field");
  if (route.method === "post" && route.scope !== "public") codes.add("invalid_field");
  if (route.params) codes.add("not_found");
  if (route.fileBody) for (const code of ["invalid_field", "payload_too_large"] as const) codes.add(code);
  if (route.body) {
    for (const code of [
      "missing_field",
      "invalid_field",
      "unknown_field",
      "invalid_json",
      "payload_too_large",
      "unsupported_media_type",
    ] as const)
      codes.add(code);
  }
  for (const code of route.errors ?? []) codes.add(code);
  return [...codes];
}

export interface Operation {
  method: string;
  path: string;
  scope: Scope | null;
  summary: string;
}

const operationLists = {
  withSettings: new WeakMap<AnyRoute[], JsonText<Operation[]>>(),
  forKeys: new WeakMap<AnyRoute[], JsonText<Operation[]>>(),
};

/**
 * The operations a caller can use, as GET /v1 lists them: method, path (:id style), scope,
 * summary. A key's list leaves out the settings area, which answers keys 401. It is the same on
 * every call, so it is serialised once per isolate, and answered as that text (90 operations,
 * 12 KB: about 20 µs of CPU in Node to serialise again on every GET /v1).
 */
export function operationsOf(routes: AnyRoute[], caller: "key" | "person"): JsonText<Operation[]> {
  const lists = caller === "key" ? operationLists.forKeys : operationLists.withSettings;
  let operations = lists.get(routes);
  if (!operations) {
    const list: Operation[] = routes
      .filter((r) => caller === "person" || r.auth !== "session")
      .map((r) => ({
        method: r.method.toUpperCase(),
        path: r.path.replace(/\{(\w+)\}/g, ":$1"),
        scope: r.scope === "public" ? null : r.scope,
        summary: r.summary,
      }));
    operations = new JsonText(JSON.stringify(list));
    lists.set(routes, operations);
  }
  return operations;
}

const patterns = new WeakMap<AnyRoute, { regex: RegExp; names: string[] }>();

/** A route's path as a pattern, compiled once: /v1/tasks/{id} -> ^/v1/tasks/([^/]+)$ and [id]. */
function patternOf(route: AnyRoute) {
  let pattern = patterns.get(route);
  if (!pattern) {
    pattern = {
      regex: new RegExp(`^${route.path.replace(/\{\w+\}/g, "([^/]+)")}$`),
      names: [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
    };
    patterns.set(route, pattern);
  }
  return pattern;
}

/** The route serving `method` `path` (a request's own path, /v1/tasks/0190...) and its path parameters as sent (not decoded). */
export function matchRoute(
  routes: AnyRoute[],
  method: string,
  path: string,
): { route: AnyRoute; params: Record<string, string> } | undefined {
  for (const route of routes) {
    if (route.method !== method.toLowerCase()) continue;
    const { regex, names } = patternOf(route);
    const values = regex.exec(path);
    if (values) return { route, params: Object.fromEntries(names.map((name, i) => [name, values[i + 1]!])) };
  }
  return undefined;
}

/** The route serving `method` `path`, or undefined. */
export const routeFor = (routes: AnyRoute[], method: string, path: string): AnyRoute | undefined => matchRoute(routes, method, path)?.route;
