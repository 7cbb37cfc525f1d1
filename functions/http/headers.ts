import type { AnyRoute } from "./registry.ts";

// Every header the API reads or sends beyond HTTP's own, declared once: the runtime sets them by
// these names (envelope.ts, errors.ts, middleware/rate-limit.ts), CORS exposes them, and the OpenAPI
// document declares them per operation and status (openapi/operation.ts toOpenApiRoute). The tests check
// that every one a response carries is declared for its operation and status (test/helpers/api.ts).

interface HeaderSpec {
  name: string;
  description: string;
  schema: {
    type: "string" | "integer";
    example?: string | number;
    minimum?: number;
    maximum?: number;
    maxLength?: number;
    pattern?: string;
    format?: "int32" | "int64";
  };
}

/** Headers of responses. */
export const RESPONSE_HEADERS = {
  requestId: {
    name: "X-Request-Id",
    description: "This request's id (the one sent, or a new one); quote it with any report.",
    schema: { type: "string", example: "9f2c1d7e-4b1a-4a5e-9d40-3c2a1b0e8f77" },
  },
  rateLimitLimit: {
    name: "RateLimit-Limit",
    description: "Requests this key, or this person in this organisation, may make per 60 s window.",
    schema: { type: "integer", minimum: 0, example: 600 },
  },
  rateLimitRemaining: {
    name: "RateLimit-Remaining",
    description: "Requests left in the current window.",
    schema: { type: "integer", minimum: 0, example: 599 },
  },
  rateLimitReset: {
    name: "RateLimit-Reset",
    description: "Seconds until the window resets.",
    schema: { type: "integer", minimum: 0, example: 42 },
  },
  retryAfter: {
    name: "Retry-After",
    description: "Seconds to wait before retrying.",
    schema: { type: "integer", minimum: 0, example: 42 },
  },
  wwwAuthenticate: {
    name: "WWW-Authenticate",
    description:
      "How to authenticate: a bearer API key or OAuth access token; resource_metadata names the protected resource's metadata (RFC 9728).",
    schema: {
      type: "string",
      example: 'Bearer realm="opsroom", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"',
    },
  },
  etag: {
    name: "ETag",
    description: "The record's version; send it back in If-Match to refuse a stale write.",
    schema: { type: "string", example: '"3"' },
  },
  link: {
    name: "Link",
    description: 'The next page, as rel="next", when there is one.',
    schema: { type: "string", example: '<https://api.example.com/v1/tasks?cursor=abc>; rel="next"' },
  },
  accessControlAllowOrigin: {
    name: "Access-Control-Allow-Origin",
    description:
      "Any origin may call with a key (keys travel in Authorization); no credentials cross origins, so the session cookie works on this origin's pages only.",
    schema: { type: "string", maxLength: 1, example: "*" },
  },
  idempotentReplayed: {
    name: "Idempotent-Replayed",
    description: "true when this is the stored first answer to a repeated Idempotency-Key.",
    schema: { type: "string", example: "true" },
  },
  contentDisposition: {
    name: "Content-Disposition",
    description: "A file's download: attachment with its name, or inline (an image or PDF asked for inline).",
    schema: { type: "string", example: "attachment; filename*=UTF-8''asbestos-survey.pdf" },
  },
  contentSecurityPolicy: {
    name: "Content-Security-Policy",
    description: "A file's download: sandboxed, no script, no requests of its own, so an uploaded HTML or SVG never runs.",
    schema: { type: "string", example: "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'" },
  },
} as const satisfies Record<string, HeaderSpec>;

/** Headers of requests. */
export const REQUEST_HEADERS = {
  ifMatch: {
    name: "If-Match",
    description:
      'The record\'s version as its ETag gave it ("3", W/"3", 3 or *): the write happens only if the record still has it (412 otherwise).',
    schema: { type: "string", maxLength: 64, example: '"3"' },
  },
  idempotencyKey: {
    name: "Idempotency-Key",
    description:
      "1 to 255 visible characters: a repeat within 24 hours with the same request answers the first answer again and writes nothing; another request with it is 422.",
    schema: { type: "string", maxLength: 255, pattern: "^[\\x21-\\x7e]{1,255}$", example: "load-2026-11-23-0001" },
  },
} as const satisfies Record<string, HeaderSpec>;

export type ResponseHeader = (typeof RESPONSE_HEADERS)[keyof typeof RESPONSE_HEADERS]["name"];

/** The names CORS lets a browser read. */
export const EXPOSED_HEADERS: string[] = Object.values(RESPONSE_HEADERS)
  .map((h) => h.name)
  .filter((name) => name !== "WWW-Authenticate" && name !== "Access-Control-Allow-Origin");

const keyed = (route: AnyRoute) => route.scope !== "public";

/** A POST replays an Idempotency-Key exactly when it declares idempotency_mismatch. */
export const replaysIdempotencyKey = (route: AnyRoute) => route.method === "post" && (route.errors ?? []).includes("idempotency_mismatch");

/** Whether a write checks If-Match (it can answer precondition_failed). */
export const checksIfMatch = (route: AnyRoute) =>
  route.method !== "get" && route.method !== "post" && (route.errors ?? []).includes("precondition_failed");

/** The response headers of `route` answering `status` (a success, or an error status). */
export function responseHeadersOf(route: AnyRoute, status: number): HeaderSpec[] {
  // CORS allows any origin on every answer (middleware/cross-origin.ts).
  const headers: HeaderSpec[] = [RESPONSE_HEADERS.requestId, RESPONSE_HEADERS.accessControlAllowOrigin];
  if (keyed(route)) headers.push(RESPONSE_HEADERS.rateLimitLimit, RESPONSE_HEADERS.rateLimitRemaining, RESPONSE_HEADERS.rateLimitReset);
  if (status === 429 || status === 503) headers.push(RESPONSE_HEADERS.retryAfter);
  if (status === 401) headers.push(RESPONSE_HEADERS.wwwAuthenticate);
  if (status < 300)
    for (const name of route.response.headers ?? []) headers.push(Object.values(RESPONSE_HEADERS).find((h) => h.name === name)!);
  return headers;
}

/** The request headers `route` reads, as OpenAPI header parameters. */
export function requestHeadersOf(route: AnyRoute): HeaderSpec[] {
  return [
    ...(checksIfMatch(route) ? [REQUEST_HEADERS.ifMatch] : []),
    ...(replaysIdempotencyKey(route) ? [REQUEST_HEADERS.idempotencyKey] : []),
  ];
}

/** The document's `components.headers`: each response header declared once, by its name. */
export const headerComponents = () =>
  Object.fromEntries(Object.values(RESPONSE_HEADERS).map((h) => [h.name, { description: h.description, schema: h.schema }]));

/** The document's `components.parameters`: each request header declared once, by its name without dashes. */
export const headerParameterComponents = () =>
  Object.fromEntries(
    Object.values(REQUEST_HEADERS).map((h) => [
      parameterName(h),
      { name: h.name, in: "header" as const, required: false, description: h.description, schema: h.schema },
    ]),
  );

const parameterName = (h: HeaderSpec) => h.name.replace(/-/g, "");

/** As a response's headers: references to the components. */
export const asHeaderObjects = (headers: HeaderSpec[]) =>
  Object.fromEntries(headers.map((h) => [h.name, { $ref: `#/components/headers/${h.name}` }]));

/** As an operation's header parameters: references to the components. */
export const asHeaderParameters = (headers: HeaderSpec[]) => headers.map((h) => ({ $ref: `#/components/parameters/${parameterName(h)}` }));
