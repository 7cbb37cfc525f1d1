import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { asPerson, signUp } from "../helpers/people.ts";
import { created, patched, projectBody, taskBody } from "../helpers/resources.ts";

// changeVersion on every answer (docs/sync.md): a read answers the organisation's counter as of the
// statement that read its data, a write the value it produced (the current one for a no-op, the
// first answer's for an Idempotency-Key replay). So "take a snapshot, then follow the feed after
// its changeVersion" is exact: the last test proves it under concurrent writes.

async function changeVersionOf(key: string, path: string, options: Parameters<typeof api>[1] = {}, status = 200): Promise<number> {
  const body = expectSuccess(await api(path, { key, ...options }), status);
  expect(body.changeVersion, `${options.method ?? "GET"} ${path}`).toEqual(expect.any(Number));
  return body.changeVersion;
}

describe("changeVersion on every answer", () => {
  it("reads answer the counter; each write answers the value it produced; a no-op the current one", async () => {
    const tenant = await createTenant();
    expect(await changeVersionOf(tenant.key, "/v1/tasks")).toBe(0);
    expect(await changeVersionOf(tenant.key, "/v1")).toBe(0);

    const project = expectSuccess(await api("/v1/projects", { key: tenant.key, body: projectBody() }), 201);
    expect(project.changeVersion).toBe(1);
    const task = expectSuccess(
      await api("/v1/tasks", { key: tenant.key, body: await taskBody(tenant, { projectId: project.data.id }) }),
      201,
    );
    // taskBody inserted the assignee straight into the database: no event, no bump.
    expect(task.changeVersion).toBe(2);

    for (const path of [
      "/v1",
      "/v1/projects",
      `/v1/projects/${project.data.id}`,
      `/v1/tasks/${task.data.id}`,
      "/v1/events",
      `/v1/tasks/${task.data.id}/history`,
      "/v1/organisation",
      "/v1/webhooks",
    ]) {
      expect(await changeVersionOf(tenant.key, path), path).toBe(2);
    }
    expect(await changeVersionOf(tenant.key, `/v1/tasks/${task.data.id}`, { method: "PATCH", body: { title: "Renamed" } })).toBe(3);
    expect(await changeVersionOf(tenant.key, `/v1/tasks/${task.data.id}`, { method: "PATCH", body: { title: "Renamed" } }), "a no-op").toBe(
      3,
    );
    expect(await changeVersionOf(tenant.key, `/v1/tasks/${task.data.id}`, { method: "DELETE" })).toBe(4);
    // Integration settings move no changeVersion: their writes answer the current one.
    expect(await changeVersionOf(tenant.key, "/v1/webhooks", { body: { url: "http://127.0.0.1:9/hook" } }, 201)).toBe(4);
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(4);
  });

  it("an Idempotency-Key replay answers the first answer's changeVersion, not the current one", async () => {
    const tenant = await createTenant();
    const body = projectBody();
    const headers = { "Idempotency-Key": `cv-${Date.now()}` };
    const first = expectSuccess(await api("/v1/projects", { key: tenant.key, body, headers }), 201);
    expect(first.changeVersion).toBe(1);
    await created(tenant.key, "/v1/projects", projectBody());
    await created(tenant.key, "/v1/projects", projectBody());
    const replay = await api("/v1/projects", { key: tenant.key, body, headers });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(expectSuccess(replay, 201).changeVersion).toBe(1);
    expect(await changeVersionOf(tenant.key, "/v1/projects")).toBe(3);
  });

  it("answers of the settings area carry it too; refusals carry none", async () => {
    const person = await signUp();
    const key = expectSuccess(
      await asPerson(person.cookie, "/v1/settings/api-keys", { body: { name: "sync", scopes: ["projects.manage"] } }),
      201,
    );
    expect(key.changeVersion).toBe(0);
    await created(key.data.key, "/v1/projects", projectBody());
    for (const path of ["/v1/settings/session", "/v1/settings/members", "/v1/settings/api-keys"]) {
      expect(expectSuccess(await asPerson(person.cookie, path)).changeVersion, path).toBe(1);
    }
    const refused = await api("/v1/tasks", { key: key.data.key });
    expect(refused.status).toBe(403);
    expect(refused.body).not.toHaveProperty("changeVersion");
  });
});

describe("snapshot, then follow", () => {
  type Task = { id: string; title: string; status: string; version: number };

  /** Applies task events to a snapshot, as a sync client would. */
  function follow(snapshot: Map<string, Task>, events: Array<{ type: string; data: Task }>): Map<string, Task> {
    const state = new Map(snapshot);
    for (const event of events) {
      if (event.type === "task.deleted") state.delete(event.data.id);
      else state.set(event.data.id, event.data);
    }
    return state;
  }

  async function allTaskEvents(tenant: Tenant, after: number) {
    const events: Array<{ type: string; data: Task; changeVersion: number }> = [];
    for (let cursor: string | null = String(after); cursor !== null;) {
      const page = expectSuccess(await api(`/v1/events?types=task.*&limit=200&after=${cursor}`, { key: tenant.key }));
      events.push(...(page.data as typeof events));
      cursor = page.nextCursor as string | null;
    }
    return events;
  }

  const byId = (tasks: Task[]) => new Map(tasks.map((t) => [t.id, { id: t.id, title: t.title, status: t.status, version: t.version }]));
  const comparable = (state: Map<string, Task>) =>
    [...state.values()]
      .map((t) => ({ id: t.id, title: t.title, status: t.status, version: t.version }))
      .sort((a, b) => a.id.localeCompare(b.id));

  it("a list taken while writes are in flight, followed from its changeVersion, equals the state after them (property)", async () => {
    const tenant = await createTenant();
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const seedTasks: string[] = [];
    for (let i = 0; i < 4; i++)
      seedTasks.push((await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id }))).id);
    const write = fc.oneof(
      fc.constant({ kind: "create" as const }),
      fc.record({
        kind: fc.constant("rename" as const),
        slot: fc.nat(20),
        title: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0 && !s.includes("\u0000")),
      }),
      fc.record({ kind: fc.constant("start" as const), slot: fc.nat(20) }),
      fc.record({ kind: fc.constant("delete" as const), slot: fc.nat(20) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), fc.nat(8), async (writes, snapshotAt) => {
        const live = [...seedTasks];
        const pick = (slot: number) => live[slot % Math.max(live.length, 1)];
        const run = async (w: (typeof writes)[number]) => {
          if (w.kind === "create") {
            live.push((await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id }))).id);
            return;
          }
          const id = pick(w.slot);
          if (!id) return;
          if (w.kind === "delete") {
            live.splice(live.indexOf(id), 1);
            await api(`/v1/tasks/${id}`, { key: tenant.key, method: "DELETE" });
          } else if (w.kind === "rename") await patched(tenant.key, `/v1/tasks/${id}`, { title: w.title });
          else await api(`/v1/tasks/${id}`, { key: tenant.key, method: "PATCH", body: { status: "in_progress" } });
        };
        // The snapshot is taken in the middle of the writes, concurrently with one of them.
        const before = writes.slice(0, snapshotAt);
        const during = writes.slice(snapshotAt);
        for (const w of before) await run(w);
        const [list] = await Promise.all([
          api("/v1/tasks?limit=200", { key: tenant.key }),
          (async () => {
            for (const w of during) await run(w);
          })(),
        ]);
        const snapshot = expectSuccess(list);
        const events = await allTaskEvents(tenant, snapshot.changeVersion);
        const now = expectSuccess(await api("/v1/tasks?limit=200", { key: tenant.key }));
        expect(comparable(follow(byId(snapshot.data as Task[]), events))).toEqual(comparable(byId(now.data as Task[])));
        // Nothing is missed or repeated: the events followed are exactly those after the snapshot.
        expect(events.every((e) => e.changeVersion > snapshot.changeVersion)).toBe(true);
        seedTasks.splice(0, seedTasks.length, ...live);
      }),
      { numRuns: 12, verbose: 1 },
    );
  });
});
