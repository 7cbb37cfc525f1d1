import type { Context } from "hono";
import { DomainError } from "../../domain/errors.ts";
import { ALL_SCOPES, type Scope } from "../../domain/scopes.ts";
import { settingsOf, type AppEnv } from "../env.ts";
import { sendError } from "../http/errors.ts";
import { RESPONSE_HEADERS } from "../http/headers.ts";
import type { AnyRoute } from "../http/registry.ts";
import { actorOfBearer } from "../middleware/bearer.ts";
import { mcpAllowsOrigin } from "../middleware/cross-origin.ts";
import { MAX_BODY_BYTES, readCapped } from "../middleware/json-body.ts";
import { MCP_RESOURCE_METADATA_PATH } from "../oauth/metadata.ts";
import { loadRoutes } from "../routes/index.ts";
import { mcpAudience, McpUnauthorized, type McpCaller } from "./dispatch.ts";
import { selectedTools, selectionOf } from "./selection.ts";

// POST /mcp: the MCP server over Streamable HTTP, stateless (no session id, nothing kept between
// requests, no Durable Object), on the official SDK. A request from a 2026-07-28 client is served
// by the SDK's createMcpHandler; one from a 2025-era client (initialize, then requests) by the
// SDK's Streamable HTTP transport in its stateless mode, answering JSON. Before either: the
// request's Origin and Host (403 for a page or a name that is not the service's: DNS rebinding),
// the credentials (401 with the RFC 9728 pointer and the scopes the tools chosen need, so a client
// finds the authorization server and what to ask it for on its own), the body (at most the largest
// route's limit, with room for the JSON-RPC around it), one JSON-RPC message (a batch is refused,
// as the protocol has had none since 2025-06-18), and the tool selection. A GET (a standalone event
// stream) or DELETE (ending a session) answers 405, as the protocol says a server without them does.

/** Where the RFC 9728 document of this resource is (the OAuth part serves it: functions/oauth/routes.ts). */
const resourceMetadataUrl = (origin: string) => `${origin}${MCP_RESOURCE_METADATA_PATH}`;

/** The JSON-RPC error answer for a request the SDK never sees. */
const jsonRpcError = (status: number, code: number, message: string, data?: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message, ...(data === undefined ? {} : { data }) }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

/**
 * A request to another name than the service's (Host), or from a browser page /mcp's CORS policy
 * does not allow (Origin): 403, as the MCP transport requires of a server (DNS rebinding).
 */
function foreignRequest(c: Context<AppEnv>, origin: string): Response | null {
  if (new URL(c.req.url).host !== new URL(origin).host)
    return jsonRpcError(403, -32000, "Forbidden: this request was sent to another host than the service's");
  const from = c.req.header("origin");
  if (from !== undefined && !mcpAllowsOrigin(from, origin))
    return jsonRpcError(403, -32000, "Forbidden: requests from this Origin are not allowed");
  return null;
}

/**
 * The scopes the tools chosen need (MCP authorization, scope selection), a .manage standing for its
 * .read, in catalogue order: what a client without a token should ask for. An unknown choice of
 * tools (answered 400 once the client has a token) asks for the default tools'.
 */
async function scopesToAsk(c: Context<AppEnv>): Promise<string> {
  const all = (await import("./tools.ts")).toolsOf(await loadRoutes());
  let tools: ReturnType<typeof selectedTools>;
  try {
    tools = selectedTools(all, selectionOf(c.req.raw));
  } catch {
    tools = selectedTools(all, { groups: ["default"], readOnly: false });
  }
  const needed = new Set(tools.map((tool) => tool.route.scope).filter((scope) => scope !== null));
  return ALL_SCOPES.filter(
    (scope) => needed.has(scope) && !(scope.endsWith(".read") && needed.has(scope.replace(/\.read$/, ".manage") as Scope)),
  ).join(" ");
}

/** 401 as /v1 answers it, with the challenge naming the resource metadata and the scopes to ask for (RFC 9728 §5.1, RFC 6750 §3). */
async function unauthorized(c: Context<AppEnv>, error: DomainError, tokenSent: boolean) {
  const response = sendError(c, error);
  const origin = settingsOf(c.env).publicOrigin;
  const challenge = [`Bearer realm="opsroom"`, `resource_metadata="${resourceMetadataUrl(origin)}"`, `scope="${await scopesToAsk(c)}"`];
  if (tokenSent) challenge.push(`error="invalid_token"`);
  response.headers.set(RESPONSE_HEADERS.wwwAuthenticate.name, challenge.join(", "));
  return response;
}

/** The largest body an MCP request may have: the largest a route takes, and room for the JSON-RPC around it. */
const bodyLimitOf = (routes: AnyRoute[]) => Math.max(MAX_BODY_BYTES, ...routes.map((route) => route.bodyLimit ?? 0)) + MAX_BODY_BYTES;

/** Reads and parses the body: a JSON-RPC error answer when it is too large, not JSON, or a batch. */
async function messageOf(c: Context<AppEnv>, limit: number): Promise<{ message: Record<string, unknown> } | Response> {
  const tooLarge = () => jsonRpcError(413, -32600, `Payload Too Large: an MCP request must be at most ${limit} bytes`);
  if (Number(c.req.header("content-length") ?? 0) > limit) return tooLarge();
  const text = await readCapped(c.req.raw.body, limit);
  if (text === null) return tooLarge();
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: the body is not valid JSON");
  }
  if (Array.isArray(message))
    return jsonRpcError(400, -32600, "Invalid Request: JSON-RPC batches are not supported (MCP has had none since 2025-06-18)");
  if (typeof message !== "object" || message === null) return jsonRpcError(400, -32600, "Invalid Request: not a JSON-RPC message");
  return { message: message as Record<string, unknown> };
}

/** The handler of /mcp on `app` (which its tool calls go through). */
export function mcpEndpoint(app: McpCaller["app"]) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const origin = settingsOf(c.env).publicOrigin;
    const foreign = foreignRequest(c, origin);
    if (foreign) return foreign;
    const authorization = c.req.header("authorization");
    if (!authorization)
      return unauthorized(c, new DomainError("unauthorized", "send your API key or access token as Authorization: Bearer <token>"), false);
    try {
      // Well-formed, or 401 at once; whose it is, each inner call's statement checks.
      actorOfBearer(authorization, mcpAudience(origin));
    } catch (error) {
      if (error instanceof DomainError) return unauthorized(c, error, true);
      throw error;
    }
    if (c.req.method !== "POST")
      return jsonRpcError(405, -32000, "Method not allowed: this server is stateless, POST only", undefined, { allow: "POST" });
    const routes = await loadRoutes();
    const read = await messageOf(c, bodyLimitOf(routes));
    if (read instanceof Response) return read;
    let tools;
    try {
      tools = selectedTools((await import("./tools.ts")).toolsOf(routes), selectionOf(c.req.raw));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return jsonRpcError(400, -32602, error.message, { code: error.code, ...error.details });
    }
    const caller: McpCaller = {
      app,
      env: c.env,
      executionCtx: c.executionCtx,
      origin,
      headers: {
        authorization,
        "x-request-id": c.get("requestId"),
        ...(c.req.header("cf-connecting-ip") ? { "cf-connecting-ip": c.req.header("cf-connecting-ip")! } : {}),
        ...(c.req.header("user-agent") ? { "user-agent": c.req.header("user-agent")! } : {}),
      },
    };
    try {
      // The SDK is loaded by the first MCP request an isolate serves, not by every isolate's start-up.
      const { serveMcp } = await import("./serve.ts");
      return await serveMcp(c.req.raw, read.message, caller, routes, tools);
    } catch (error) {
      if (error instanceof McpUnauthorized) {
        const refusal = error.answer.body.error as { code: "unauthorized" | "invalid_key" };
        return unauthorized(c, new DomainError(refusal.code, String(error.answer.body.message)), true);
      }
      throw error;
    }
  };
}
