import { describe, expect, it } from "vitest";
import { revokeApiKey } from "../../db/statements/api-keys.ts";
import { api, workerUrl } from "../helpers/api.ts";
import { testDatabase } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { connectMcp, mcpUrl, postMcp } from "./helpers.ts";

// The endpoint itself: credentials first (401 pointing at the RFC 9728 document), then one JSON-RPC
// message within the size limit, each refusal the JSON-RPC error the protocol specifies and never
// a 5xx; a stateless server's answer to GET and DELETE; the caller's rate limit, as HTTP spends it.

const LEGACY = { "mcp-protocol-version": "2025-06-18" };
const rpc = (method: string, params: Record<string, unknown> = {}, id = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

describe("the /mcp endpoint", () => {
  it("answers a request without credentials 401, pointing at its protected resource metadata", async () => {
    const answer = await postMcp(rpc("tools/list"));
    expect(answer.status).toBe(401);
    const metadataUrl = `${new URL(workerUrl()).origin}/.well-known/oauth-protected-resource/mcp`;
    expect(answer.headers.get("www-authenticate")).toContain(`resource_metadata="${metadataUrl}"`);
    expect(answer.json.error.code).toBe("unauthorized");
    const metadata = await fetch(metadataUrl);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      resource: `${new URL(workerUrl()).origin}/mcp`,
      authorization_servers: [expect.any(String)],
      bearer_methods_supported: ["header"],
      scopes_supported: expect.arrayContaining(["tasks.read", "tasks.manage"]),
    });
  });

  it("refuses malformed, unknown and revoked keys 401 when connecting, and a key revoked since on its next call", async () => {
    const tenant = await createTenant();
    for (const header of ["Basic abc", "Bearer not-a-key"]) {
      const answer = await postMcp(rpc("tools/list"), undefined, { authorization: header });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    const revoked = await tenant.revokedKey();
    for (const era of ["legacy", "modern"] as const)
      await expect(connectMcp(revoked.key, { era })).rejects.toMatchObject({ data: { status: 401 } });
    const key = await tenant.keyWith(["tasks.read"]);
    const client = await connectMcp(key.key);
    await revokeApiKey(testDatabase(), key.id);
    const call = await postMcp(rpc("tools/call", { name: "listTasks", arguments: {} }), key.key, LEGACY);
    expect(call.status).toBe(401);
    expect(call.json.error.code).toBe("invalid_key");
    await expect(client.listTools()).rejects.toMatchObject({ data: { status: 401 } });
  });

  it("answers malformed messages, batches, oversized bodies and unknown tools with the specified JSON-RPC errors, never a 5xx", async () => {
    const tenant = await createTenant();
    const cases: Array<[string, string, number, number]> = [
      ["not JSON", "{ nope", 400, -32700],
      ["not a JSON-RPC message", JSON.stringify({ hello: "world" }), 400, -32600],
      ["a JSON value that is no message", "42", 400, -32600],
      ["a batch", `[${rpc("tools/list", {}, 1)},${rpc("tools/list", {}, 2)}]`, 400, -32600],
      ["oversized arguments", rpc("tools/call", { name: "createTask", arguments: { title: "x".repeat(1_200_000) } }), 413, -32600],
    ];
    for (const [what, body, status, code] of cases) {
      const answer = await postMcp(body, tenant.key, LEGACY);
      expect([what, answer.status, answer.json?.error?.code]).toEqual([what, status, code]);
      expect(answer.json).toMatchObject({ jsonrpc: "2.0", id: null });
    }
    const unknown = await postMcp(rpc("tools/call", { name: "launchRocket", arguments: {} }, 7), tenant.key, LEGACY);
    expect(unknown.status).toBe(200);
    expect(unknown.json).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32602 } });
    // Arguments within the endpoint's limit but over the route's: the route's own refusal, as a tool error.
    const large = await postMcp(rpc("tools/call", { name: "createProject", arguments: { name: "x".repeat(70_000) } }), tenant.key, LEGACY);
    expect(large.json.result).toMatchObject({ isError: true, structuredContent: { error: { code: "payload_too_large" } } });
  });

  it("answers GET and DELETE 405, as a server without streams or sessions does", async () => {
    const tenant = await createTenant();
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(mcpUrl(), { method, headers: { authorization: `Bearer ${tenant.key}`, accept: "text/event-stream" } });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    }
  });

  it("lets a browser's MCP client on this machine through CORS, with the protocol's headers and the tool selection", async () => {
    // The MCP Inspector's web UI; a page of any other origin but the service's is refused (origin.test.ts).
    const response = await fetch(mcpUrl(), {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:6274",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,mcp-protocol-version,x-mcp-tools",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    const allowed = (response.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/\s*,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining(["authorization", "content-type", "mcp-protocol-version", "x-mcp-tools", "x-mcp-readonly"]),
    );
  });

  it("counts each MCP request that reaches the API against the key's rate limit, as HTTP does", async () => {
    const tenant = await createTenant();
    const key = await tenant.keyWith(["tasks.read"], { rateLimit: 5 });
    // Connecting checks the key (1), listing the tools reads its scopes (2).
    const client = await connectMcp(key.key);
    await client.listTools();
    for (let call = 3; call <= 5; call++) expect((await client.callTool({ name: "listTasks", arguments: {} })).isError).toBe(false);
    const limited = (await client.callTool({ name: "listTasks", arguments: {} })) as { isError: boolean; structuredContent: any };
    expect(limited.isError).toBe(true);
    expect(limited.structuredContent.error).toMatchObject({ code: "rate_limited", retryAfter: expect.any(Number) });
    expect((await api("/v1/tasks", { key: key.key })).status).toBe(429);
  });
});
