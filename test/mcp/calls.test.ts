import type { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { snapshot, expectNoTrace } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { connectToRoom, useRoom } from "../helpers/realtime.ts";
import { expectOneWrite, storedEvents, taskBody, unique } from "../helpers/resources.ts";
import { connectMcp } from "./helpers.ts";

// A tool call is its route's HTTP call: the same verb and statement, the same refusals (as tool
// errors carrying the API's code and field, and leaving no trace), the same events with the
// caller as their actor, and the same Idempotency-Key replay.

useRoom();

interface ToolResult {
  isError?: boolean;
  structuredContent?: any;
  content: Array<{ type: string; text?: string }>;
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<ToolResult>;

/** The result is a success whose structured content is the API's envelope, also sent as text. */
function expectEnvelope(result: ToolResult) {
  expect(result.isError, JSON.stringify(result.structuredContent)).toBe(false);
  expect(result.structuredContent).toMatchObject({ success: true, version: "v1", changeVersion: expect.any(Number) });
  expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent);
  return result.structuredContent;
}

/** Calls a tool that must be refused: a tool error carrying the API's error code (and details), and no trace in the organisation. */
async function expectToolRefusal(tenant: Tenant, client: Client, name: string, args: Record<string, unknown>, code: string, details = {}) {
  const before = await snapshot(tenant.org.id);
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toMatchObject({ success: false, version: "v1", error: { code, ...details } });
  expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent);
  expectNoTrace(before, await snapshot(tenant.org.id));
  return result.structuredContent;
}

describe.each(["legacy", "modern"] as const)("tool calls (%s era)", (era) => {
  it("creates and changes a task; the room sends both events with the key as their actor", async () => {
    const tenant = await createTenant();
    const room = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    const client = await connectMcp(tenant.key, { era });
    const before = await snapshot(tenant.org.id);
    const created = expectEnvelope(await call(client, "createTask", { ...(await taskBody(tenant)), idempotencyKey: `create-${unique()}` }));
    expect(created.data).toMatchObject({ status: "todo", version: 1 });
    await expectOneWrite(tenant.org.id, before, "task.created");
    const changed = expectEnvelope(await call(client, "updateTask", { id: created.data.id, status: "in_progress", ifMatch: 1 }));
    expect(changed.data).toMatchObject({ id: created.data.id, status: "in_progress", version: 2 });
    expect(changed.changeVersion).toBe(created.changeVersion + 1);
    const events = await room.waitForEvents(2);
    const actor = { type: "key", id: tenant.keyId, name: tenant.application };
    expect(events.map((e) => [e.type, e.changeVersion, e.actor])).toEqual([
      ["task.created", created.changeVersion, actor],
      ["task.updated", changed.changeVersion, actor],
    ]);
    expect(events[1]!.changes).toEqual({ status: { from: "todo", to: "in_progress" } });
  });

  it("answers each refusal as a tool error with the API's code and field, and changes nothing", async () => {
    const tenant = await createTenant();
    const client = await connectMcp(tenant.key, { era });
    const task = await tenant.insertTask();
    // Validation: a required field missing, a value off its schema, an argument the route does not take.
    const { dueDate: _, ...noDueDate } = await taskBody(tenant);
    await expectToolRefusal(tenant, client, "createTask", noDueDate, "missing_field", { field: "dueDate" });
    await expectToolRefusal(tenant, client, "updateTask", { id: task.id, priority: "someday" }, "invalid_field", { field: "priority" });
    await expectToolRefusal(tenant, client, "updateTask", { id: task.id, colour: "red" }, "unknown_field", { field: "colour" });
    await expectToolRefusal(tenant, client, "getTask", {}, "missing_field", { field: "id" });
    // If-Match: the task is at version 1.
    await expectToolRefusal(tenant, client, "updateTask", { id: task.id, title: "Stale", ifMatch: '"7"' }, "precondition_failed");
    // The workflow: todo cannot move to done.
    const refusal = await expectToolRefusal(tenant, client, "updateTask", { id: task.id, status: "done" }, "invalid_transition");
    expect(refusal.error.allowed).toEqual(expect.arrayContaining(["in_progress", "cancelled"]));
    // Another organisation's task is not found.
    const other = await (await createTenant()).insertTask();
    await expectToolRefusal(tenant, client, "getTask", { id: other.id }, "not_found");
    // An argument that travels as a header and holds what no header can (a line break, NUL, beyond
    // Latin-1): invalid_field naming the argument, not a JSON-RPC internal error.
    for (const bad of ["key\r\nX-Injected: 1", "key\n", "\rkey", "key\u0000", "key\u2028"]) {
      await expectToolRefusal(tenant, client, "createTask", { ...(await taskBody(tenant)), idempotencyKey: bad }, "invalid_field", {
        field: "idempotencyKey",
      });
      await expectToolRefusal(tenant, client, "updateTask", { id: task.id, title: "X", ifMatch: bad }, "invalid_field", {
        field: "ifMatch",
      });
    }
  });

  it("answers a call beyond the key's scopes with the route's 403 as a tool error", async () => {
    const tenant = await createTenant();
    const reader = await tenant.keyWith(["tasks.read"]);
    const client = await connectMcp(reader.key, { era });
    await expectToolRefusal(tenant, client, "createTask", await taskBody(tenant), "insufficient_scope", { scope: "tasks.manage" });
    await expectToolRefusal(tenant, client, "listProjects", {}, "insufficient_scope", { scope: "projects.read" });
  });

  it("creates once when an agent retries a create with the same idempotencyKey", async () => {
    const tenant = await createTenant();
    const client = await connectMcp(tenant.key, { era });
    const args = { ...(await taskBody(tenant)), idempotencyKey: `retry-${unique()}` };
    const before = await snapshot(tenant.org.id);
    const first = expectEnvelope(await call(client, "createTask", args));
    const retried = expectEnvelope(await call(client, "createTask", args));
    expect(retried).toEqual(first);
    await expectOneWrite(tenant.org.id, before, "task.created");
    expect((await storedEvents(tenant.org.id)).filter((e) => e.type === "task.created")).toHaveLength(1);
    // The same key with other arguments is refused, and writes nothing.
    await expectToolRefusal(tenant, client, "createTask", { ...args, title: "Another" }, "idempotency_mismatch", {
      field: "Idempotency-Key",
    });
  });
});
