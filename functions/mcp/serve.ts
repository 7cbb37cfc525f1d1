import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHttpHandler,
} from "@modelcontextprotocol/server";
import type { AnyRoute } from "../http/registry.ts";
import type { McpCaller } from "./dispatch.ts";
import { McpSession } from "./session.ts";
import type { McpTool } from "./tools.ts";

// The SDK's side of /mcp (endpoint.ts loads this module on its first MCP request): a request from a
// 2026-07-28 client goes to the SDK's createMcpHandler, one from a 2025-era client (initialize,
// then requests) to the SDK's Streamable HTTP transport in its stateless mode, answering JSON.
// Either way a fresh low-level server for this caller and selection (session.ts) serves it.

/** The SDK's handler of 2026-07-28 requests; the session of each request rides in on authInfo. */
let modern: McpHttpHandler | undefined;
const modernHandler = () =>
  (modern ??= createMcpHandler(({ authInfo }) => (authInfo!.extra!.session as McpSession).server(), {
    legacy: "reject",
  }));

/** A 2025-era request: a fresh server on the SDK's stateless transport, answering JSON once the handler is done. */
async function serveLegacy(request: Request, session: McpSession, parsedBody: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const server = session.server();
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}

const CONNECTING = new Set(["initialize", "server/discover"]);

/**
 * Serves one MCP message. A route that refuses the credentials throws McpUnauthorized (the
 * endpoint answers 401); connecting checks them first (GET /v1), so a bad or expired one is
 * answered 401 at once rather than at the first tool.
 */
export async function serveMcp(
  request: Request,
  message: Record<string, unknown>,
  caller: McpCaller,
  routes: AnyRoute[],
  tools: McpTool[],
) {
  const session = new McpSession(caller, routes, tools);
  if (CONNECTING.has(String(message.method))) await session.describe();
  const authInfo: AuthInfo = { token: caller.headers.authorization!, clientId: "opsroom", scopes: [], extra: { session } };
  const response = (await isLegacyRequest(request, message))
    ? await serveLegacy(request, session, message)
    : await modernHandler().fetch(request, { parsedBody: message, authInfo });
  if (session.refused) throw session.refused;
  return response;
}
