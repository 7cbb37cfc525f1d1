import type { CallToolResult } from "@modelcontextprotocol/server";
import { DomainError } from "../../domain/errors.ts";
import type { Bindings } from "../env.ts";
import { statusOf } from "../http/errors.ts";
import type { AnyRoute } from "../http/registry.ts";
import { mcpCallContext, type Audience } from "../middleware/bearer.ts";
import type { McpTool } from "./tools.ts";

// A tool call runs its route exactly as HTTP would: the arguments become the route's path, query,
// body and headers, and the request goes through the Worker's own app, in process, with the
// caller's credentials. So the middleware (credentials, rate limit, scope, Idempotency-Key, body
// limits), the validation, the service verb and its one statement are those of the HTTP call, and
// the answer is its envelope. What it adds is no database round trip: only the in-process request.

/** What every inner request carries from the MCP request: the app, the Worker's bindings and context, and the caller's headers. */
export interface McpCaller {
  app: { fetch(request: Request, env: Bindings, executionCtx: ExecutionContext): Response | Promise<Response> };
  env: Bindings;
  executionCtx: ExecutionContext;
  /** The service's origin (https://api.example.com), which the inner request's URL takes. */
  origin: string;
  /** Authorization, and the client address, user agent and request id the answer, the rate limit and the audit log see. */
  headers: Record<string, string>;
}

export interface RouteCall {
  path: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
  /** The bytes of a route whose body is a file (fileBody), sent as they are. */
  file?: Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
}

/** A route's answer: its status and envelope. */
export interface RouteAnswer {
  status: number;
  body: Record<string, unknown>;
  /** The envelope as JSON, as the route encoded it (a tool result's text, not encoded again). */
  text: string;
}

/** The inner answer was 401: the MCP request is answered 401 itself, so the client re-authenticates (docs/mcp.md). */
export class McpUnauthorized extends Error {
  constructor(readonly answer: RouteAnswer) {
    super("the credentials were refused");
  }
}

const queryString = (query: Record<string, unknown>) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const each of Array.isArray(value) ? value : [value])
      search.append(name, typeof each === "object" && each !== null ? JSON.stringify(each) : String(each));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
};

/** An OAuth access token used with the MCP server must be for it (RFC 8707; docs/apps.md "Audience"). */
export const mcpAudience = (origin: string): Audience => ({ resource: `${origin}/mcp`, unboundAccepted: false });

/** Runs `route` with `call` through the app, as an HTTP client would. */
export async function callRoute(caller: McpCaller, route: AnyRoute, call: RouteCall): Promise<RouteAnswer> {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(call.path[name] ?? ""));
  const headers: Record<string, string> = { ...caller.headers, ...call.headers };
  let payload: BodyInit | undefined;
  if (route.body) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(call.body ?? {});
  } else if (route.fileBody && call.file) {
    headers["content-type"] = "application/octet-stream";
    payload = call.file;
  }
  const request = new Request(`${caller.origin}${path}${queryString(call.query)}`, {
    method: route.method.toUpperCase(),
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  });
  // The request's own context says it is the MCP server's: its audience, and its actor carries the MCP request.
  const executionCtx = mcpCallContext(caller.executionCtx, mcpAudience(caller.origin));
  const response = await caller.app.fetch(request, caller.env, executionCtx);
  // The envelope as the route encoded it is the tool result's text; parsed once for its structured content.
  const text = await response.text();
  const answer = { status: response.status, body: JSON.parse(text) as Record<string, unknown>, text };
  if (response.status === 401) throw new McpUnauthorized(answer);
  return answer;
}

/**
 * An argument that travels as a header (idempotencyKey, ifMatch): a value a header cannot carry
 * (CR, LF, NUL, a character beyond Latin-1) is refused naming the argument, as any bad argument is;
 * the route checks the rest as it checks the header.
 */
export function headerValue(name: string, value: unknown): string {
  const text = String(value);
  // What the Fetch standard refuses in a header value (a leading or trailing one it would strip silently).
  if (/[\0\r\n]|[^\0-\xff]/.test(text))
    throw new DomainError("invalid_field", `${name} must be text a header can carry: no line break, NUL or character beyond Latin-1`, {
      field: name,
    });
  return text;
}

/** A refusal found before the route ran, answered as the route would answer it. */
export function refusalAnswer(error: DomainError): RouteAnswer {
  const body = { success: false, version: "v1", message: error.message, error: { code: error.code, ...error.details } };
  return { status: statusOf(error), body, text: JSON.stringify(body) };
}

/**
 * A tool's arguments as its route's call. A missing path parameter is refused here (there is no
 * path without it), as the route refuses a missing field; every other argument goes where the
 * route reads it, and one it does not take goes to the query or body, where the route refuses it
 * by name (unknown_field).
 */
export function routeCallOf(tool: McpTool, args: Record<string, unknown> = {}): RouteCall {
  const { placement } = tool;
  const call: RouteCall = { path: {}, query: {}, headers: {} };
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (placement.path.includes(name)) call.path[name] = String(value);
    else if (name === "idempotencyKey" && placement.headers.idempotencyKey) call.headers!["idempotency-key"] = headerValue(name, value);
    else if (name === "ifMatch" && placement.headers.ifMatch) call.headers!["if-match"] = headerValue(name, value);
    else if (placement.query.includes(name)) call.query[name] = value;
    else if (placement.body === "nested" && name === "body") call.body = value;
    else if (Array.isArray(placement.body)) body[name] = value;
    else call.query[name] = value;
  }
  for (const name of placement.path)
    if (call.path[name] === undefined) throw new DomainError("missing_field", `${name} is required`, { field: name });
  if (Array.isArray(placement.body)) call.body = body;
  else if (placement.body === "nested" && call.body === undefined) call.body = {};
  return call;
}

/** A route's answer as a tool's result: the envelope as text and as structured content; a refusal is a tool error. */
export const toolResult = (answer: RouteAnswer, more: CallToolResult["content"] = []): CallToolResult => ({
  content: [{ type: "text", text: answer.text }, ...more],
  structuredContent: answer.body,
  isError: answer.status >= 400,
});
