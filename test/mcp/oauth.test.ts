import { describe, expect, it } from "vitest";
import { registerApp, tokensFor } from "../apps/helpers.ts";
import { api, testClientAddress, workerUrl } from "../helpers/api.ts";
import { insertPerson, insertProject, keyWith } from "../helpers/fixtures.ts";
import { signUp } from "../helpers/people.ts";
import { connectToRoom, useRoom } from "../helpers/realtime.ts";
import { connectMcp, postMcp } from "./helpers.ts";

// An agent that holds no key: it finds the authorization server from /mcp's 401 alone, and an
// access token issued for the resource <origin>/mcp (RFC 8707) works there, writing as the
// application on behalf of the person who allowed it. A token issued for the API is refused on
// /mcp, and one for /mcp on the API.

useRoom();

const origin = () => new URL(workerUrl()).origin;

describe("the MCP server with OAuth", () => {
  it("leads a client without credentials from the 401 to the authorization server's endpoints", async () => {
    const challenge = (await postMcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }))).headers.get("www-authenticate")!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
    const resource = (await (await fetch(metadataUrl)).json()) as { resource: string; authorization_servers: string[] };
    expect(resource.resource).toBe(`${origin()}/mcp`);
    const issuer = resource.authorization_servers[0]!;
    const server = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(server).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
    });
  });

  it("takes a token issued for <origin>/mcp: the agent's task appears live as the app on behalf of the person", async () => {
    const owner = await signUp({ name: "Grace Hopper" });
    const app = await registerApp(owner, { name: "Planner Agent" });
    const tokens = await tokensFor(app, owner, { overrides: { resource: `${origin()}/mcp` } });
    const watcher = await keyWith(owner.orgId, ["tasks.read"]);
    const room = await connectToRoom(owner.orgId, { apiKey: watcher.key });
    const client = await connectMcp(tokens.access_token);
    // The granted scopes (tasks.manage projects.read) decide the list: no personnel, no project writes.
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ["createComment", "createTask", "getProject", "getTask", "listComments", "listProjects", "listTasks", "updateTask"].sort(),
    );
    const [project, person] = [await insertProject(owner.orgId), await insertPerson(owner.orgId)];
    const arguments_ = {
      title: "Order the boiler",
      projectId: project.id,
      assigneeId: person.id,
      dueDate: "2026-12-01",
      idempotencyKey: "agent-1",
    };
    const created = (await client.callTool({ name: "createTask", arguments: arguments_ })) as { isError: boolean; structuredContent: any };
    expect(created.isError).toBe(false);
    const [event] = await room.waitForEvents(1);
    expect(event).toMatchObject({ type: "task.created", changeVersion: created.structuredContent.changeVersion });
    expect(event!.actor).toEqual({
      type: "app",
      id: app.id,
      name: "Planner Agent",
      onBehalfOf: { type: "user", id: owner.userId, name: "Grace Hopper" },
    });
  });

  it("refuses on /mcp a token issued for the API, and on the API a token issued for /mcp", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const forApi = await tokensFor(app, owner, { overrides: { resource: origin() } });
    const unbound = await tokensFor(app, owner);
    const forMcp = await tokensFor(app, owner, { overrides: { resource: `${origin()}/mcp` } });
    for (const token of [forApi.access_token, unbound.access_token]) {
      await expect(connectMcp(token)).rejects.toMatchObject({ data: { status: 401 } });
      const call = await postMcp(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "listTasks", arguments: {} } }),
        token,
        { "mcp-protocol-version": "2025-06-18" },
      );
      expect(call.status).toBe(401);
      expect(call.headers.get("www-authenticate")).toContain('error="invalid_token"');
      // The same token works on the API it was issued for.
      expect((await api("/v1/tasks", { key: token, headers: { "cf-connecting-ip": testClientAddress() } })).status).toBe(200);
    }
    expect((await api("/v1/tasks", { key: forMcp.access_token })).status).toBe(401);
  });
});
