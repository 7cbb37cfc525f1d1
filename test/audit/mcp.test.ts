import { describe, expect, it } from "vitest";
import { registerApp, tokensFor } from "../apps/helpers.ts";
import { expectSuccess, workerUrl } from "../helpers/api.ts";
import { auditRows, expectFromThisRequest, expectOneEntry, readAuditLog, verify } from "../helpers/audit.ts";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { signUp } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { connectMcp, postMcp } from "../mcp/helpers.ts";

// MCP sessions in the audit log: the first MCP call of a UTC day by a key or an installed
// application records mcp.session_started, in that call's own statement; later calls that day
// record nothing (and cost no statement). A refused call records nothing; a call whose statement
// appends its own entry (a webhook made through MCP) leaves the session to the next call.

useRoom();

const sessions = async (orgId: string) => (await auditRows(orgId)).filter((row) => row.action === "mcp.session_started");

describe("audit: MCP sessions", () => {
  it("a key: its first MCP request of the day records one entry (the key, from where); more calls, a second connection, none", async () => {
    const tenant = await createTenant({ scopes: ["tasks.read", "projects.read"] });
    const entry = await expectOneEntry(tenant.org.id, "mcp.session_started", async () => {
      await connectMcp(tenant.key);
    });
    expect(entry.actor).toEqual({ type: "key", id: tenant.keyId, name: tenant.application });
    expect(entry.target).toEqual({ type: "api_key", id: tenant.keyId, name: tenant.application });
    expect(entry.changes).toBeNull();
    expectFromThisRequest(entry);
    const before = await auditRows(tenant.org.id);
    const client = await connectMcp(tenant.key);
    await client.listTools();
    await client.callTool({ name: "listTasks", arguments: {} });
    await connectMcp(tenant.key, { era: "modern" });
    expect(await auditRows(tenant.org.id)).toEqual(before);
    // The next UTC day (its row moved back a day): the first call records again.
    await query(`update mcp_session_days set day = day - 1 where credential_id = $1`, [tenant.keyId]);
    await expectOneEntry(tenant.org.id, "mcp.session_started", () => client.listTools());
    expect(await sessions(tenant.org.id)).toHaveLength(2);
  });

  it("an application: the installation, the app acting for its person; the REST API records no MCP session", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const access = (await tokensFor(app, owner, { overrides: { resource: `${new URL(workerUrl()).origin}/mcp` } })).access_token;
    const [installation] = (await query<{ id: string }>(`select id from installations where application_id = $1`, [app.id]))!;
    const entry = await expectOneEntry(owner.orgId, "mcp.session_started", async () => {
      const response = await postMcp(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
        access,
      );
      expect(response.status, response.text).toBe(200);
    });
    expect(entry.actor).toEqual({
      type: "app",
      id: app.id,
      name: app.name,
      onBehalfOf: { type: "user", id: owner.userId, name: owner.name },
    });
    expect(entry.target).toEqual({ type: "installation", id: installation!.id, name: app.name });
    expectFromThisRequest(entry);
  });

  it("refused calls record nothing; a webhook made through MCP records webhook.created, and the next call the session", async () => {
    const tenant = await createTenant({ scopes: ["webhooks.manage", "tasks.read"] });
    const noScope = await tenant.keyWith(["projects.read"]);
    const before = await auditRows(tenant.org.id);
    expect((await postMcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), "not-a-key")).status).toBe(401);
    const client = await connectMcp(noScope.key, { query: { tools: "all" } }).catch(() => null);
    expect(client).not.toBeNull();
    expect(await sessions(tenant.org.id)).toHaveLength(1); // the scope-less key's own session (GET /v1 needs no scope)
    const refused = (await client!.callTool({ name: "listTasks", arguments: {} })) as { isError?: boolean };
    expect(refused.isError).toBe(true);
    expect((await auditRows(tenant.org.id)).length).toBe(before.length + 1);

    const receiver = await startReceiver();
    const raw = await postMcp(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "createWebhook", arguments: { url: receiver.url, events: ["task.*"] } },
      }),
      tenant.key,
      { "mcp-protocol-version": "2025-06-18", "x-mcp-tools": "all" },
    );
    expect(raw.status, raw.text).toBe(200);
    expect(raw.json.result.isError, raw.text).toBe(false);
    const added = (await auditRows(tenant.org.id)).slice(before.length + 1).map((row) => row.action);
    expect(added).toEqual(["webhook.created"]);
    await expectOneEntry(tenant.org.id, "mcp.session_started", async () => {
      expect(
        (
          await postMcp(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }), tenant.key, {
            "mcp-protocol-version": "2025-06-18",
          })
        ).status,
      ).toBe(200);
    });
  });

  it("filtered by action through GET /v1/audit-log; the chain verifies", async () => {
    const tenant = await createTenant({ scopes: ["tasks.read", "audit.read"] });
    await connectMcp(tenant.key);
    const listed = expectSuccess(await readAuditLog("/v1/audit-log?action=mcp.session_started", { key: tenant.key })).data as Array<{
      action: string;
      target: { id: string };
    }>;
    expect(listed.map((e) => [e.action, e.target.id])).toEqual([["mcp.session_started", tenant.keyId]]);
    const run = await verify(tenant.org.id);
    expect(run.code, run.stderr).toBe(0);
  }, 120_000);
});
