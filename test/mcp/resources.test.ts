import { describe, expect, it } from "vitest";
import { api } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { taskBody } from "../helpers/resources.ts";
import { connectMcp } from "./helpers.ts";

// The two resources: the organisation's self-description (GET /v1) and its recent events
// (GET /v1/events), each read through its route with the caller's credentials.

const json = (result: { contents: Array<{ text?: string; uri: string }> }) => JSON.parse(result.contents[0]!.text!);

describe("MCP resources", () => {
  it("lists the organisation and its recent events, and reads each through its route", async () => {
    const tenant = await createTenant();
    const client = await connectMcp(tenant.key);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["opsroom://organisation", "opsroom://events/recent"]);
    const read = await client.readResource({ uri: "opsroom://organisation" });
    // The route's answer as the route wrote it, byte for byte.
    expect((read.contents[0] as { text?: string }).text).toBe((await api("/v1", { key: tenant.key })).text);
    const self = json(read);
    expect(self).toMatchObject({ success: true, organisation: tenant.org.id, application: tenant.application });
    expect(self.scopes.map((s: { scope: string }) => s.scope)).toEqual(tenant.scopes);
    const created = (await client.callTool({ name: "createTask", arguments: await taskBody(tenant) })) as { structuredContent: any };
    const recent = json(await client.readResource({ uri: "opsroom://events/recent" }));
    expect(recent.data.map((e: { type: string; changeVersion: number; actor: unknown }) => [e.type, e.changeVersion, e.actor])).toEqual([
      ["task.created", created.structuredContent.changeVersion, { type: "key", id: tenant.keyId, name: tenant.application }],
    ]);
    await expect(client.readResource({ uri: "opsroom://nothing" })).rejects.toMatchObject({ code: -32602 });
  });

  it("reads the events a key's scopes see, and none of the others", async () => {
    const tenant = await createTenant();
    await connectMcp(tenant.key).then(async (client) => client.callTool({ name: "createTask", arguments: await taskBody(tenant) }));
    const projects = await tenant.keyWith(["projects.read"]);
    const client = await connectMcp(projects.key);
    expect(json(await client.readResource({ uri: "opsroom://events/recent" })).data).toEqual([]);
  });
});
