import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach } from "vitest";
import { testClientAddress, workerUrl } from "../helpers/api.ts";

// The official MCP client SDK (@modelcontextprotocol/client) against the Worker's /mcp, over
// Streamable HTTP, with a key or an access token as Bearer.

export interface McpConnection {
  /** ?tools= and ?readonly= as the URL carries them. */
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** The protocol era: "legacy" (the 2025 initialize handshake, the client's default) or "modern" (2026-07-28, server/discover). */
  era?: "legacy" | "modern";
}

const open = new Set<Client>();
afterEach(async () => {
  await Promise.all([...open].map((client) => client.close().catch(() => {})));
  open.clear();
});

export const mcpUrl = (query: Record<string, string> = {}) => {
  const url = new URL("/mcp", workerUrl());
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url;
};

/** A connected client; closed after the test. */
export async function connectMcp(token: string, options: McpConnection = {}): Promise<Client> {
  const client = new Client(
    { name: "opsroom-tests", version: "1.0.0" },
    options.era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(mcpUrl(options.query), {
    requestInit: { headers: { authorization: `Bearer ${token}`, "cf-connecting-ip": testClientAddress(), ...options.headers } },
  });
  await client.connect(transport);
  open.add(client);
  return client;
}

/** A raw POST to /mcp: for what no SDK client would send (malformed messages, batches, oversized bodies). */
export async function postMcp(body: string, token?: string, headers: Record<string, string> = {}) {
  const response = await fetch(mcpUrl(), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "cf-connecting-ip": testClientAddress(),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body,
  });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // An SSE body or none: left to the test.
  }
  return { status: response.status, headers: response.headers, text, json };
}
