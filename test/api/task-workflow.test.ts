import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { expectOneWrite, patched, refusedCall, storedEvents } from "../helpers/resources.ts";

// The task workflow (docs/api.md "Records"), written out here rather than imported from the app, so
// the test states the contract: every allowed move succeeds, every other one is 409
// invalid_transition listing the allowed targets, and a refused move changes nothing.

const WORKFLOW: Record<string, string[]> = {
  todo: ["in_progress", "cancelled"],
  in_progress: ["todo", "blocked", "done", "cancelled"],
  blocked: ["in_progress", "cancelled"],
  done: ["in_progress"],
  cancelled: ["todo"],
};
const STATUSES = Object.keys(WORKFLOW);
const moves = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => [from, to] as const));

describe("task workflow: allowed moves", () => {
  for (const [from, to] of moves.filter(([from, to]) => WORKFLOW[from]!.includes(to))) {
    it(`${from} -> ${to}: 200, one task.updated event with the status change`, async () => {
      const tenant = await createTenant({ scopes: ["tasks.manage"] });
      const task = await tenant.insertTask({ status: from });
      const before = await snapshot(tenant.org.id);
      const response = await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { status: to } });
      expect(expectSuccess(response).data).toMatchObject({ status: to, version: 2 });
      const event = await expectOneWrite(tenant.org.id, before, "task.updated");
      expect(event.changes).toEqual({ status: { from, to } });
    });
  }
});

describe("task workflow: refused moves", () => {
  for (const [from, to] of moves.filter(([from, to]) => !WORKFLOW[from]!.includes(to))) {
    it(`${from} -> ${to}: 409 invalid_transition, allowed = ${WORKFLOW[from]!.join(", ")}, nothing written`, async () => {
      const tenant = await createTenant({ scopes: ["tasks.manage"] });
      const task = await tenant.insertTask({ status: from });
      await refusedCall(tenant, `/v1/tasks/${task.id}`, { method: "PATCH", body: { status: to } }, 409, "invalid_transition", {
        field: "status",
        from,
        allowed: WORKFLOW[from],
      });
    });
  }

  it("a refused move refuses the whole patch: the other fields are not written either", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask({ status: "todo", priority: "low" });
    await refusedCall(
      tenant,
      `/v1/tasks/${task.id}`,
      { method: "PATCH", body: { title: "Sneaky", priority: "urgent", status: "done" } },
      409,
      "invalid_transition",
      {
        allowed: WORKFLOW.todo,
      },
    );
    expect((await api(`/v1/tasks/${task.id}`, { key: tenant.key })).body.data).toMatchObject({
      title: task.title,
      priority: "low",
      status: "todo",
    });
  });

  it("412 comes before 409: a stale If-Match on a disallowed move is precondition_failed", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask({ status: "todo" });
    await refusedCall(
      tenant,
      `/v1/tasks/${task.id}`,
      { method: "PATCH", body: { status: "done" }, headers: { "if-match": '"9"' } },
      412,
      "precondition_failed",
    );
  });
});

describe("task workflow: a whole life", () => {
  it("walks every status through the API; version and changeVersion move once per step", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    const path = ["in_progress", "blocked", "in_progress", "done", "in_progress", "cancelled", "todo", "cancelled"];
    for (const status of path) await patched(tenant.key, `/v1/tasks/${task.id}`, { status });

    const final = (await api(`/v1/tasks/${task.id}`, { key: tenant.key })).body.data;
    expect(final).toMatchObject({ status: "cancelled", version: 1 + path.length });
    const events = await storedEvents(tenant.org.id);
    expect(events.map((e) => e.changeVersion)).toEqual(path.map((_, i) => i + 1));
    expect(events.map((e) => e.changes!.status!.to)).toEqual(path);
    expect(events.map((e) => e.changes!.status!.from)).toEqual(["todo", ...path.slice(0, -1)]);
  });

  it("sending the current status is not a move: 200, nothing written", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask({ status: "blocked" });
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { status: "blocked" } });
    expect(expectSuccess(response).data).toMatchObject({ status: "blocked", version: 1 });
    expect(await snapshot(tenant.org.id)).toEqual(before);
  });
});
