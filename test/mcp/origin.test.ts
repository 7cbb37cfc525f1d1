import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { testClientAddress, workerUrl } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { mcpUrl, postMcp } from "./helpers.ts";

// /mcp's Origin and Host (docs/mcp.md "Origin and Host") and its 401 challenge's scopes, found
// missing by the fourth security probe. The MCP transport says a server must validate Origin and
// answer 403 to an invalid one (DNS rebinding): /mcp refuses an Origin its CORS policy does not
// allow (the service's own origin and pages on this machine are allowed) and a Host that is not
// the service's (PUBLIC_ORIGIN), before it reads the credentials. And without credentials its
// challenge names the scopes the tools chosen need (MCP authorization, scope selection).

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const HEADERS = { "mcp-protocol-version": "2025-06-18" };

/** POST /mcp with the Host header given (fetch sets its own). */
function postWithHost(host: string, token: string) {
  const url = mcpUrl();
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const sent = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: {
          host,
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "cf-connecting-ip": testClientAddress(),
          ...HEADERS,
        },
      },
      (response) => {
        let body = "";
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, body }));
      },
    );
    sent.on("error", reject);
    sent.end(LIST);
  });
}

describe("/mcp's Origin and Host", () => {
  it("refuses an Origin its CORS policy does not allow (403), whatever the credentials; allows its own and this machine's", async () => {
    const tenant = await createTenant();
    for (const origin of ["http://evil.example", "null", "https://127.0.0.1.evil.example", `${workerUrl()}.evil.example`]) {
      const refused = await postMcp(LIST, tenant.key, { ...HEADERS, origin });
      expect(refused.status, origin).toBe(403);
      expect(refused.json, origin).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
      // Refused before the credentials are read: the same without any.
      expect((await postMcp(LIST, undefined, { ...HEADERS, origin })).status, origin).toBe(403);
    }
    for (const origin of [workerUrl(), "http://localhost:6274", "http://127.0.0.1:6274", "http://[::1]:3000"]) {
      const allowed = await postMcp(LIST, tenant.key, { ...HEADERS, origin });
      expect(allowed.status, `${origin}: ${allowed.text}`).toBe(200);
    }
    expect((await postMcp(LIST, tenant.key, HEADERS)).status).toBe(200);
  });

  it("its preflight allows the origins the endpoint answers, and no other", async () => {
    const preflight = (origin: string) =>
      fetch(mcpUrl(), {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
      });
    expect((await preflight("http://evil.example")).headers.get("access-control-allow-origin")).toBeNull();
    expect((await preflight("http://localhost:6274")).headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    // The API itself stays open to any origin (keys travel in the Authorization header).
    const api = await fetch(new URL("/v1/tasks", workerUrl()), {
      method: "OPTIONS",
      headers: { origin: "http://evil.example", "access-control-request-method": "GET" },
    });
    expect(api.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("refuses a Host that is not the service's (403), and answers its own", async () => {
    const tenant = await createTenant();
    for (const host of ["evil.example.com", `evil.example.com:${mcpUrl().port}`, `localhost:${mcpUrl().port}`]) {
      const refused = await postWithHost(host, tenant.key);
      expect(refused.status, host).toBe(403);
      expect(JSON.parse(refused.body), host).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    }
    expect((await postWithHost(mcpUrl().host, tenant.key)).status).toBe(200);
  });
});

describe("/mcp's 401 challenge", () => {
  const challengeOf = async (query = "") =>
    (
      await fetch(`${mcpUrl()}${query}`, { method: "POST", headers: { "content-type": "application/json", ...HEADERS }, body: LIST })
    ).headers.get("www-authenticate")!;

  it("names the scopes the tools chosen need, a .manage standing for its .read", async () => {
    expect(await challengeOf()).toBe(
      `Bearer realm="opsroom", resource_metadata="${workerUrl()}/.well-known/oauth-protected-resource/mcp", ` +
        `scope="organisation.read projects.manage tasks.manage"`,
    );
    expect(await challengeOf("?readonly=1")).toContain(`scope="organisation.read projects.read tasks.read"`);
    expect(await challengeOf("?tools=risks")).toContain(`scope="risks.manage"`);
    // A choice of tools that is no group: the default tools' scopes (the 400 comes once a token is sent).
    expect(await challengeOf("?tools=nothing")).toContain(`scope="organisation.read projects.manage tasks.manage"`);
  });
});
