/* eslint-disable max-lines -- one subject, task dependencies: adding, removing, done waiting for blockers, deleting a blocker, and cycles on random graphs. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { expectOneWrite, refusedCall, storedEvents } from "../helpers/resources.ts";
import { insertComment, insertTaskIn } from "../helpers/work.ts";

// Dependencies (docs/api.md "Tasks"): "task A is blocked by task B", added with POST
// /v1/tasks/{id}/dependencies and removed with DELETE .../dependencies/{blockerId}. Each is a
// change of the task (its version, one task.updated event with changes.blockedBy); a cycle is
// 409 dependency_cycle naming its path; across projects is allowed; a task with an open blocker
// cannot move to done. Refusals leave no trace.

const add = (tenant: Tenant, id: string, blockedBy: string, headers: Record<string, string> = {}) =>
  api(`/v1/tasks/${id}/dependencies`, { key: tenant.key, body: { blockedBy }, headers });
const remove = (tenant: Tenant, id: string, blocker: string) =>
  api(`/v1/tasks/${id}/dependencies/${blocker}`, { key: tenant.key, method: "DELETE" });
const blockedByOf = async (id: string) =>
  (await query<{ blocked_by: string[] }>("select blocked_by from tasks where id = $1", [id]))[0]!.blocked_by;

describeRefusals({
  method: "POST",
  path: (id) => `/v1/tasks/${id}/dependencies`,
  scope: "tasks.manage",
  record: (tenant) => insertTaskIn(tenant),
  body: async (tenant) => ({ blockedBy: await insertTaskIn(tenant) }),
});
describeRefusals({
  method: "DELETE",
  path: (id) => `/v1/tasks/${id}/dependencies/019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10`,
  scope: "tasks.manage",
  record: async (tenant) => insertTaskIn(tenant, { blockedBy: ["019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10"] }),
});

describe("POST /v1/tasks/:id/dependencies", () => {
  it("blocks the task: blockedBy and blocking on both records, one task.updated with changes.blockedBy, a new ETag", async () => {
    const tenant = await createTenant();
    const [task, blocker] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    const before = await snapshot(tenant.org.id);
    const response = await add(tenant, task, blocker);
    const data = expectSuccess(response).data;
    expect(data).toMatchObject({ id: task, blockedBy: [blocker], blocking: [], version: 2 });
    expect(response.headers.get("etag")).toBe('"2"');
    const event = await expectOneWrite(tenant.org.id, before, "task.updated");
    expect(event.changes).toEqual({ blockedBy: { from: [], to: [blocker] } });
    expect(event.data).toEqual(data);
    expect(expectSuccess(await api(`/v1/tasks/${blocker}`, { key: tenant.key })).data).toMatchObject({
      blocking: [task],
      blockedBy: [],
      version: 1,
    });
  });

  it("adding one already there changes nothing: 200, no event, the same version", async () => {
    const tenant = await createTenant();
    const blocker = await insertTaskIn(tenant);
    const task = await insertTaskIn(tenant, { blockedBy: [blocker] });
    const before = await snapshot(tenant.org.id);
    const data = expectSuccess(await add(tenant, task, blocker)).data;
    expect(data).toMatchObject({ blockedBy: [blocker], version: 1 });
    expect(await snapshot(tenant.org.id)).toEqual(before);
  });

  it("across projects of the organisation is allowed; blockers keep their order", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const [first, second] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    expectSuccess(await add(tenant, task, first));
    expect(expectSuccess(await add(tenant, task, second)).data.blockedBy).toEqual([first, second]);
  });

  it("a cycle is 409 dependency_cycle naming its path, from the task back to it; nothing changes", async () => {
    const tenant = await createTenant();
    const [a, b, c] = [await insertTaskIn(tenant), await insertTaskIn(tenant), await insertTaskIn(tenant)];
    expectSuccess(await add(tenant, a, b)); // a waits for b
    expectSuccess(await add(tenant, b, c)); // b waits for c
    // c waiting for a would close a -> b -> c -> a.
    const body = await refusedCall(
      tenant,
      `/v1/tasks/${c}/dependencies`,
      { method: "POST", body: { blockedBy: a } },
      409,
      "dependency_cycle",
      { field: "blockedBy" },
    );
    expect(body.error.path).toEqual([c, a, b, c]);
    // The shortest: b waiting for a.
    const two = await refusedCall(
      tenant,
      `/v1/tasks/${b}/dependencies`,
      { method: "POST", body: { blockedBy: a } },
      409,
      "dependency_cycle",
    );
    expect(two.error.path).toEqual([b, a, b]);
  });

  it("a task blocked by itself is 409 dependency_cycle with the path [it, it]", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const body = await refusedCall(
      tenant,
      `/v1/tasks/${task}/dependencies`,
      { method: "POST", body: { blockedBy: task } },
      409,
      "dependency_cycle",
      { field: "blockedBy" },
    );
    expect(body.error.path).toEqual([task, task]);
  });

  it("a blocker that is no task of the organisation is 400 invalid_reference blockedBy; a bad id 400 invalid_field", async () => {
    const [tenant, other] = [await createTenant(), await createTenant()];
    const task = await insertTaskIn(tenant);
    const foreign = await insertTaskIn(other);
    await refusedCall(
      tenant,
      `/v1/tasks/${task}/dependencies`,
      { method: "POST", body: { blockedBy: foreign } },
      400,
      "invalid_reference",
      { field: "blockedBy" },
    );
    await refusedCall(
      tenant,
      `/v1/tasks/${task}/dependencies`,
      { method: "POST", body: { blockedBy: "not-an-id" } },
      400,
      "invalid_field",
      { field: "blockedBy" },
    );
    await refusedCall(tenant, `/v1/tasks/${task}/dependencies`, { method: "POST", body: {} }, 400, "missing_field", { field: "blockedBy" });
    await refusedCall(
      tenant,
      `/v1/tasks/${task}/dependencies`,
      { method: "POST", body: { blockedBy: foreign, extra: 1 } },
      400,
      "unknown_field",
      { field: "extra" },
    );
  });

  it("honours If-Match: a stale version is 412 and nothing changes", async () => {
    const tenant = await createTenant();
    const [task, blocker] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    await refusedCall(
      tenant,
      `/v1/tasks/${task}/dependencies`,
      { method: "POST", body: { blockedBy: blocker }, headers: { "if-match": '"7"' } },
      412,
      "precondition_failed",
    );
    expectSuccess(await add(tenant, task, blocker, { "if-match": '"1"' }));
  });

  it("refuses an Idempotency-Key (adding twice is harmless without one): 400, nothing changes", async () => {
    const tenant = await createTenant();
    const [task, blocker] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    await refusedCall(
      tenant,
      `/v1/tasks/${task}/dependencies`,
      { method: "POST", body: { blockedBy: blocker }, headers: { "idempotency-key": "k-1" } },
      400,
      "invalid_field",
      {
        field: "Idempotency-Key",
      },
    );
  });

  it("a task blocked by 100 tasks takes no more: 409 conflict", async () => {
    const tenant = await createTenant();
    const blockers = await Promise.all(Array.from({ length: 100 }, () => insertTaskIn(tenant)));
    const task = await insertTaskIn(tenant, { blockedBy: blockers });
    const one = await insertTaskIn(tenant);
    await refusedCall(tenant, `/v1/tasks/${task}/dependencies`, { method: "POST", body: { blockedBy: one } }, 409, "conflict", {
      field: "blockedBy",
    });
    // Resending one it has is still a no-op.
    expectSuccess(await add(tenant, task, blockers[0]!));
  });

  it("a task blocking 100 tasks blocks no more: 409 conflict on blockedBy, nothing changes; one it blocks already is still a no-op", async () => {
    const tenant = await createTenant();
    const blocker = await insertTaskIn(tenant);
    const blocked = await Promise.all(Array.from({ length: 100 }, () => insertTaskIn(tenant, { blockedBy: [blocker] })));
    const task = await insertTaskIn(tenant);
    await refusedCall(tenant, `/v1/tasks/${task}/dependencies`, { method: "POST", body: { blockedBy: blocker } }, 409, "conflict", {
      field: "blockedBy",
    });
    expectSuccess(await add(tenant, blocked[0]!, blocker));
    // Once it blocks one fewer, it may block another.
    expectSuccess(await remove(tenant, blocked[1]!, blocker));
    expect(expectSuccess(await add(tenant, task, blocker)).data.blockedBy).toEqual([blocker]);
  });
});

describe("DELETE /v1/tasks/:id/dependencies/:blockerId", () => {
  it("unblocks: one task.updated with changes.blockedBy; the blocker's blocking empties", async () => {
    const tenant = await createTenant();
    const blocker = await insertTaskIn(tenant);
    const task = await insertTaskIn(tenant, { blockedBy: [blocker] });
    const before = await snapshot(tenant.org.id);
    expect(expectSuccess(await remove(tenant, task, blocker)).data).toMatchObject({ blockedBy: [], version: 2 });
    const event = await expectOneWrite(tenant.org.id, before, "task.updated");
    expect(event.changes).toEqual({ blockedBy: { from: [blocker], to: [] } });
    expect(expectSuccess(await api(`/v1/tasks/${blocker}`, { key: tenant.key })).data.blocking).toEqual([]);
  });

  it("a task not blocked by it is 404 not_found; nothing changes", async () => {
    const tenant = await createTenant();
    const [task, other] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    await refusedCall(tenant, `/v1/tasks/${task}/dependencies/${other}`, { method: "DELETE" }, 404, "not_found");
  });
});

describe("done waits for the blockers", () => {
  it("a task with an open blocker cannot move to done: 409 open_blockers naming them; once they are done or cancelled it can", async () => {
    const tenant = await createTenant();
    const [open, cancelled, done] = [
      await insertTaskIn(tenant),
      await insertTaskIn(tenant, { status: "cancelled" }),
      await insertTaskIn(tenant, { status: "done" }),
    ];
    const task = await insertTaskIn(tenant, { status: "in_progress", blockedBy: [open, cancelled, done] });
    const body = await refusedCall(tenant, `/v1/tasks/${task}`, { method: "PATCH", body: { status: "done" } }, 409, "open_blockers", {
      field: "status",
    });
    expect(body.error.blockers).toEqual([open]);
    // Other changes still go through, and a move along the workflow that is not done.
    expectSuccess(await api(`/v1/tasks/${task}`, { key: tenant.key, method: "PATCH", body: { status: "blocked" } }));
    expectSuccess(await api(`/v1/tasks/${task}`, { key: tenant.key, method: "PATCH", body: { status: "in_progress" } }));
    await query("update tasks set status = 'done' where id = $1", [open]);
    expect(expectSuccess(await api(`/v1/tasks/${task}`, { key: tenant.key, method: "PATCH", body: { status: "done" } })).data.status).toBe(
      "done",
    );
  });

  it("the workflow is checked first: a move that is no workflow move is invalid_transition, whatever the blockers", async () => {
    const tenant = await createTenant();
    const blocker = await insertTaskIn(tenant);
    const task = await insertTaskIn(tenant, { blockedBy: [blocker] });
    await refusedCall(tenant, `/v1/tasks/${task}`, { method: "PATCH", body: { status: "done" } }, 409, "invalid_transition");
  });
});

describe("deleting a blocker", () => {
  it("takes it out of every blockedBy, a task.updated each, then task.deleted; its comments go with it, a comment.deleted each", async () => {
    const tenant = await createTenant();
    const blocker = await insertTaskIn(tenant);
    const [first, second] = [await insertTaskIn(tenant, { blockedBy: [blocker] }), await insertTaskIn(tenant, { blockedBy: [blocker] })];
    const comment = await insertComment(tenant, blocker);
    const before = await snapshot(tenant.org.id);
    expectSuccess(await api(`/v1/tasks/${blocker}`, { key: tenant.key, method: "DELETE" }));
    const events = await storedEvents(tenant.org.id, before.changeVersion);
    // Consecutive changeVersions: the cascades first (task updates by id, then the comment), the delete last.
    expect(events.map((e) => e.changeVersion)).toEqual([1, 2, 3, 4].map((n) => before.changeVersion + n));
    expect(events.map((e) => [e.type, e.data.id])).toEqual([
      ...[first, second].sort().map((id) => ["task.updated", id]),
      ["comment.deleted", comment],
      ["task.deleted", blocker],
    ]);
    for (const event of events.slice(0, 2)) expect(event.changes).toEqual({ blockedBy: { from: [blocker], to: [] } });
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(before.changeVersion + 4);
    expect(await blockedByOf(first)).toEqual([]);
    expect(expectSuccess(await api(`/v1/tasks/${second}`, { key: tenant.key })).data).toMatchObject({ blockedBy: [], version: 2 });
  });
});

/** The model's answer: is `to` reachable from `from` along blockedBy edges? */
function reachable(graph: Map<number, number[]>, from: number, to: number): boolean {
  const seen = new Set<number>();
  const stack = [from];
  while (stack.length) {
    const node = stack.pop()!;
    if (node === to) return true;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...(graph.get(node) ?? []));
  }
  return false;
}

describe("cycle detection on random graphs (property)", () => {
  const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);

  it(`every dependency is accepted exactly when it closes no cycle; a refusal's path is a real cycle (seed ${seed})`, async () => {
    const tenant = await createTenant({ rateLimit: 1_000_000 });
    const tasks = await Promise.all(Array.from({ length: 8 }, () => insertTaskIn(tenant)));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(7), fc.nat(7)), { minLength: 10, maxLength: 30 }), async (edges) => {
        await query("update tasks set blocked_by = '{}' where org_id = $1", [tenant.org.id]);
        const graph = new Map<number, number[]>();
        for (const [from, to] of edges) {
          const cycle = reachable(graph, to, from);
          const response = await add(tenant, tasks[from]!, tasks[to]!);
          if (cycle) {
            expect(response.status, `${from} blocked by ${to} closes a cycle`).toBe(409);
            const path: string[] = response.body.error.path;
            expect(path[0]).toBe(tasks[from]);
            expect(path.at(-1)).toBe(tasks[from]);
            expect(path[1]).toBe(tasks[to]);
            // Each step is an edge of the graph (or the one refused).
            const index = (id: string) => tasks.indexOf(id);
            for (let i = 1; i < path.length - 1; i++)
              expect(graph.get(index(path[i]!)) ?? [], `${path[i]} is blocked by ${path[i + 1]}`).toContain(index(path[i + 1]!));
          } else {
            expect(response.status, `${from} blocked by ${to}: ${response.text.slice(0, 200)}`).toBe(200);
            const list = graph.get(from) ?? [];
            if (!list.includes(to)) graph.set(from, [...list, to]);
          }
        }
        for (const [i, id] of tasks.entries()) expect(await blockedByOf(id)).toEqual((graph.get(i) ?? []).map((n) => tasks[n]));
      }),
      { seed, numRuns: 12 },
    );
  }, 120_000);

  it("two concurrent dependencies that would close a cycle together: one is refused", async () => {
    const tenant = await createTenant();
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
      const answers = await Promise.all([add(tenant, a, b), add(tenant, b, a)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const [aBlocked, bBlocked] = [await blockedByOf(a), await blockedByOf(b)];
      expect(aBlocked.length + bBlocked.length).toBe(1);
    }
  });
});
