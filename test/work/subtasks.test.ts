import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { expectOneWrite, refusedCall, taskBody } from "../helpers/resources.ts";
import { insertTaskIn } from "../helpers/work.ts";

// Subtasks (docs/api.md "Tasks"): parentId names a task of the same project; at most 5 levels;
// no cycles; ?parentId= lists a task's subtasks; a task answers subtaskCount and subtasksDone;
// a parent cannot move to done while a subtask (at any depth) is open; a task with subtasks is
// not deleted. Refusals leave no trace.

const patch = (tenant: Tenant, id: string, body: unknown) => api(`/v1/tasks/${id}`, { key: tenant.key, method: "PATCH", body });

/** A chain of `levels` tasks, each the subtask of the one before; answers their ids, the top first. */
async function chain(tenant: Tenant, levels: number): Promise<string[]> {
  const ids = [await insertTaskIn(tenant)];
  while (ids.length < levels) ids.push(await insertTaskIn(tenant, { parentId: ids.at(-1)! }));
  return ids;
}

describe("parentId on create and change", () => {
  it("a subtask created under a parent: parentId answered, the parent counts it, ?parentId= lists it", async () => {
    const tenant = await createTenant();
    const parent = await insertTaskIn(tenant);
    const projectId = (await query<{ project_id: string }>("select project_id from tasks where id = $1", [parent]))[0]!.project_id;
    const before = await snapshot(tenant.org.id);
    const child = expectSuccess(
      await api("/v1/tasks", { key: tenant.key, body: await taskBody(tenant, { projectId, parentId: parent }) }),
      201,
    ).data;
    expect(child).toMatchObject({ parentId: parent, subtaskCount: 0, subtasksDone: 0 });
    await expectOneWrite(tenant.org.id, before, "task.created");
    // The parent's counts are derived: they move without its version moving.
    expect(expectSuccess(await api(`/v1/tasks/${parent}`, { key: tenant.key })).data).toMatchObject({
      subtaskCount: 1,
      subtasksDone: 0,
      version: 1,
    });
    await query("update tasks set status = 'done' where id = $1", [child.id]);
    expect(expectSuccess(await api(`/v1/tasks/${parent}`, { key: tenant.key })).data).toMatchObject({ subtaskCount: 1, subtasksDone: 1 });
    await insertTaskIn(tenant); // not a subtask
    const listed = expectSuccess(await api(`/v1/tasks?parentId=${parent}`, { key: tenant.key })).data;
    expect(listed.map((t: { id: string }) => t.id)).toEqual([child.id]);
  });

  it("a parent in another project, another organisation or nowhere is 400 invalid_reference parentId", async () => {
    const [tenant, other] = [await createTenant(), await createTenant()];
    const elsewhere = await insertTaskIn(tenant);
    const foreign = await insertTaskIn(other);
    for (const parentId of [elsewhere, foreign, "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10"]) {
      await refusedCall(tenant, "/v1/tasks", { method: "POST", body: await taskBody(tenant, { parentId }) }, 400, "invalid_reference", {
        field: "parentId",
      });
    }
    const task = await insertTaskIn(tenant);
    await refusedCall(tenant, `/v1/tasks/${task}`, { method: "PATCH", body: { parentId: elsewhere } }, 400, "invalid_reference", {
      field: "parentId",
    });
  });

  it("a change moves a task under a parent and out again (null), with changes.parentId", async () => {
    const tenant = await createTenant();
    const parent = await insertTaskIn(tenant);
    const projectId = (await query<{ project_id: string }>("select project_id from tasks where id = $1", [parent]))[0]!.project_id;
    const task = await insertTaskIn(tenant, { projectId });
    const before = await snapshot(tenant.org.id);
    expect(expectSuccess(await patch(tenant, task, { parentId: parent })).data.parentId).toBe(parent);
    expect((await expectOneWrite(tenant.org.id, before, "task.updated")).changes).toEqual({ parentId: { from: null, to: parent } });
    expect(expectSuccess(await patch(tenant, task, { parentId: null })).data.parentId).toBeNull();
  });
});

describe("at most 5 levels, and no cycles", () => {
  it("a sixth level is 409 conflict on parentId with maxDepth 5, on create and on change", async () => {
    const tenant = await createTenant();
    const levels = await chain(tenant, 5);
    const projectId = (await query<{ project_id: string }>("select project_id from tasks where id = $1", [levels[0]]))[0]!.project_id;
    await refusedCall(
      tenant,
      "/v1/tasks",
      { method: "POST", body: await taskBody(tenant, { projectId, parentId: levels[4] }) },
      409,
      "conflict",
      {
        field: "parentId",
        maxDepth: 5,
      },
    );
    // Level 4 still takes one.
    expectSuccess(await api("/v1/tasks", { key: tenant.key, body: await taskBody(tenant, { projectId, parentId: levels[3] }) }), 201);
    // A task with one subtask moved under level 4 would put that subtask at level 6.
    const top = await insertTaskIn(tenant, { projectId });
    await insertTaskIn(tenant, { parentId: top });
    await refusedCall(tenant, `/v1/tasks/${top}`, { method: "PATCH", body: { parentId: levels[3] } }, 409, "conflict", {
      field: "parentId",
      maxDepth: 5,
    });
    expectSuccess(await patch(tenant, top, { parentId: levels[2] }));
  });

  it("a task under itself or under one of its subtasks is 409 dependency_cycle with the path", async () => {
    const tenant = await createTenant();
    const [a, b, c] = await chain(tenant, 3);
    const self = await refusedCall(tenant, `/v1/tasks/${a}`, { method: "PATCH", body: { parentId: a } }, 409, "dependency_cycle", {
      field: "parentId",
    });
    expect(self.error.path).toEqual([a, a]);
    const deep = await refusedCall(tenant, `/v1/tasks/${a}`, { method: "PATCH", body: { parentId: c } }, 409, "dependency_cycle", {
      field: "parentId",
    });
    expect(deep.error.path).toEqual([a, c, b, a]);
  });
});

describe("done waits for the subtasks", () => {
  it("a parent with an open subtask at any depth cannot move to done: 409 open_subtasks naming them", async () => {
    const tenant = await createTenant();
    const parent = await insertTaskIn(tenant, { status: "in_progress" });
    const child = await insertTaskIn(tenant, { parentId: parent, status: "done" });
    const grandchild = await insertTaskIn(tenant, { parentId: child, status: "todo" });
    const cancelled = await insertTaskIn(tenant, { parentId: parent, status: "cancelled" });
    const body = await refusedCall(tenant, `/v1/tasks/${parent}`, { method: "PATCH", body: { status: "done" } }, 409, "open_subtasks", {
      field: "status",
    });
    expect(body.error.subtasks).toEqual([grandchild]);
    await query("update tasks set status = 'cancelled' where id = $1", [grandchild]);
    expect(expectSuccess(await patch(tenant, parent, { status: "done" })).data.status).toBe("done");
    expect(cancelled).toBeTruthy();
  });

  it("blockers are named before subtasks when both are open", async () => {
    const tenant = await createTenant();
    const blocker = await insertTaskIn(tenant);
    const parent = await insertTaskIn(tenant, { status: "in_progress", blockedBy: [blocker] });
    await insertTaskIn(tenant, { parentId: parent });
    await refusedCall(tenant, `/v1/tasks/${parent}`, { method: "PATCH", body: { status: "done" } }, 409, "open_blockers");
  });
});

describe("deleting", () => {
  it("a task with subtasks is 409 conflict with dependants.subtasks; a subtask is deleted, and the parent then can be", async () => {
    const tenant = await createTenant();
    const parent = await insertTaskIn(tenant);
    const child = await insertTaskIn(tenant, { parentId: parent });
    const body = await refusedCall(tenant, `/v1/tasks/${parent}`, { method: "DELETE" }, 409, "conflict");
    expect(body.error.dependants).toEqual({ subtasks: 1 });
    expectSuccess(await api(`/v1/tasks/${child}`, { key: tenant.key, method: "DELETE" }));
    expectSuccess(await api(`/v1/tasks/${parent}`, { key: tenant.key, method: "DELETE" }));
  });
});
