import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startSqlEndpoint, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { PRUNE_CRON } from "../../functions/sweep-plan.ts";
import { api, expectError, expectSuccess, type ApiResponse, type Method } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { asPerson, signUp } from "../helpers/people.ts";
import { runSweep, waitForAcknowledged, withRoom } from "../helpers/realtime.ts";
import { expectRefused, projectBody, taskBody } from "../helpers/resources.ts";
import { pollUntil } from "../helpers/wait.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";

// Retention (EVENT_RETENTION_DAYS, default 30, fractions allowed): past it an event is no longer
// readable. GET /v1/events?after=N with N+1 older than the oldest kept event is 410
// resync_required naming oldestChangeVersion (the current changeVersion + 1 when none is kept),
// never a page that silently starts later; after=current or later is never 410; a record's history
// no longer lists what expired. Two ways: on the harness's Worker (30 days) by backdating a
// tenant's events in the database, and on Workers of this file's own with a retention of seconds,
// where time really passes. A malformed setting is refused when the Worker starts
// (test/unit/settings.test.ts).

const versionsOf = (body: { data: Array<{ changeVersion: number }> }) => body.data.map((e) => e.changeVersion);
const typedVersionsOf = (body: { data: Array<{ type: string; changeVersion: number }> }) => body.data.map((e) => [e.type, e.changeVersion]);

/** Moves the organisation's events up to `upTo` back in time (default: past the 30 days). */
async function backdate(orgId: string, upTo: number, age = "31 days") {
  await query("update events set occurred_at = now() - $3::interval where org_id = $1 and change_version <= $2", [orgId, upTo, age]);
}

/** GET /v1/events must be 410 resync_required naming `oldest`, and leave no trace. */
async function expectResync(orgId: string, call: () => Promise<ApiResponse>, oldest: number) {
  const body = await expectRefused(orgId, call, 410, "resync_required", { oldestChangeVersion: oldest, field: "after" });
  expect(body).not.toHaveProperty("changeVersion");
  return body;
}

/** Writes through the API as `key`; answers the record and the changeVersion the write produced. */
async function write(key: string, path: string, method: "POST" | "PATCH" | "DELETE", body?: unknown) {
  const response = await api(path, { key, method, body });
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return { id: response.body.data.id as string, changeVersion: response.body.changeVersion as number };
}

describe("on the harness's Worker (30 days), events backdated past retention", () => {
  let tenant: Tenant;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    tenant = await createTenant();
    ids.P = (await write(tenant.key, "/v1/projects", "POST", projectBody())).id; // 1 project.created
    await write(tenant.key, `/v1/projects/${ids.P}`, "PATCH", { budget: 1 }); // 2 project.updated
    ids.T = (await write(tenant.key, "/v1/tasks", "POST", await taskBody(tenant, { projectId: ids.P }))).id; // 3 task.created
    await write(tenant.key, `/v1/tasks/${ids.T}`, "PATCH", { status: "in_progress" }); // 4 task.updated
    await write(tenant.key, `/v1/tasks/${ids.T}`, "PATCH", { title: "Kept" }); // 5 task.updated
    const last = await write(tenant.key, "/v1/projects", "POST", projectBody()); // 6 project.created
    ids.P2 = last.id;
    expect(last.changeVersion).toBe(6);
    await backdate(tenant.org.id, 3);
  });

  it("after < K (K the last expired changeVersion): 410 resync_required, oldestChangeVersion K+1, with or without a filter, whatever the key may read", async () => {
    for (const after of [0, 1, 2]) {
      await expectResync(tenant.org.id, () => api(`/v1/events?after=${after}`, { key: tenant.key }), 4);
    }
    // No after is after=0: the very beginning is no longer kept.
    await expectResync(tenant.org.id, () => api("/v1/events", { key: tenant.key }), 4);
    for (const filter of ["types=task.*", `projectId=${ids.P}`, `recordId=${ids.P2}`, "excludeOwn=true", "limit=1"]) {
      await expectResync(tenant.org.id, () => api(`/v1/events?after=2&${filter}`, { key: tenant.key }), 4);
    }
    // Whatever it may read: the changes it cannot follow may be any of them.
    const tasksOnly = (await tenant.keyWith(["tasks.read"])).key;
    await expectResync(tenant.org.id, () => api("/v1/events?after=1", { key: tasksOnly }), 4);
  });

  it("after >= K: 200 with exactly the kept events after it; after = the current changeVersion or later: 200, empty", async () => {
    const cases: Array<[number, number[]]> = [
      [3, [4, 5, 6]],
      [4, [5, 6]],
      [5, [6]],
      [6, []],
      [7, []],
      [1_000_000, []],
    ];
    for (const [after, expected] of cases) {
      const response = await api(`/v1/events?after=${after}`, { key: tenant.key });
      const body = expectSuccess(response);
      expect(versionsOf(body as never), `after=${after}`).toEqual(expected);
      expect(body.nextCursor).toBeNull();
      expect(response.body.changeVersion).toBe(6);
    }
    // Filters apply to what is kept.
    expect(typedVersionsOf(expectSuccess(await api(`/v1/events?after=3&types=task.*`, { key: tenant.key })) as never)).toEqual([
      ["task.updated", 4],
      ["task.updated", 5],
    ]);
    expect(typedVersionsOf(expectSuccess(await api(`/v1/events?after=3&projectId=${ids.P}`, { key: tenant.key })) as never)).toEqual([
      ["task.updated", 4],
      ["task.updated", 5],
    ]);
  });

  it("a record's history lists only its kept events; a record whose events all expired has an empty history", async () => {
    expect(typedVersionsOf(expectSuccess(await api(`/v1/tasks/${ids.T}/history`, { key: tenant.key })) as never)).toEqual([
      ["task.updated", 4],
      ["task.updated", 5],
    ]);
    expect(expectSuccess(await api(`/v1/projects/${ids.P}/history`, { key: tenant.key }))).toMatchObject({
      count: 0,
      data: [],
      nextCursor: null,
    });
    expect(typedVersionsOf(expectSuccess(await api(`/v1/projects/${ids.P2}/history`, { key: tenant.key })) as never)).toEqual([
      ["project.created", 6],
    ]);
  });

  it("another organisation, its events fresh, is untouched: after=0 is 200 with all of them", async () => {
    const fresh = await createTenant();
    const project = await write(fresh.key, "/v1/projects", "POST", projectBody());
    await write(fresh.key, `/v1/projects/${project.id}`, "PATCH", { budget: 3 });
    expect(versionsOf(expectSuccess(await api("/v1/events?after=0", { key: fresh.key })) as never)).toEqual([1, 2]);
    // ... and an organisation without any event is never 410.
    const empty = await createTenant();
    for (const after of [0, 1, 50]) {
      const response = await api(`/v1/events?after=${after}`, { key: empty.key });
      expect(expectSuccess(response)).toMatchObject({ count: 0, data: [], nextCursor: null });
      expect(response.body.changeVersion).toBe(0);
    }
  });

  it("events just inside the window are kept: 29 days old is readable, 31 is not", async () => {
    const t = await createTenant();
    const project = await write(t.key, "/v1/projects", "POST", projectBody()); // 1
    await write(t.key, `/v1/projects/${project.id}`, "PATCH", { budget: 7 }); // 2
    await write(t.key, `/v1/projects/${project.id}`, "PATCH", { budget: 8 }); // 3
    await backdate(t.org.id, 2, "29 days");
    expect(versionsOf(expectSuccess(await api("/v1/events?after=0", { key: t.key })) as never)).toEqual([1, 2, 3]);
    expect(versionsOf(expectSuccess(await api(`/v1/projects/${project.id}/history`, { key: t.key })) as never)).toEqual([1, 2, 3]);
    await backdate(t.org.id, 1, "31 days");
    await expectResync(t.org.id, () => api("/v1/events?after=0", { key: t.key }), 2);
    expect(versionsOf(expectSuccess(await api("/v1/events?after=1", { key: t.key })) as never)).toEqual([2, 3]);
    expect(versionsOf(expectSuccess(await api(`/v1/projects/${project.id}/history`, { key: t.key })) as never)).toEqual([2, 3]);
  });

  it("every event expired: oldestChangeVersion is the current changeVersion + 1, after=current is 200; a deleted record's history is gone (404)", async () => {
    const t = await createTenant();
    const project = await write(t.key, "/v1/projects", "POST", projectBody()); // 1
    const task = await write(t.key, "/v1/tasks", "POST", await taskBody(t, { projectId: project.id })); // 2
    await write(t.key, `/v1/tasks/${task.id}`, "DELETE"); // 3
    await write(t.key, `/v1/projects/${project.id}`, "PATCH", { budget: 9 }); // 4
    await backdate(t.org.id, 4);
    for (const after of [0, 1, 3]) await expectResync(t.org.id, () => api(`/v1/events?after=${after}`, { key: t.key }), 5);
    const current = await api("/v1/events?after=4", { key: t.key });
    expect(expectSuccess(current)).toMatchObject({ count: 0, data: [], nextCursor: null });
    expect(current.body.changeVersion).toBe(4);
    // The project still exists: its history is empty. The deleted task is known only by its events, all expired.
    expect(expectSuccess(await api(`/v1/projects/${project.id}/history`, { key: t.key })).count).toBe(0);
    await expectRefused(t.org.id, () => api(`/v1/tasks/${task.id}/history`, { key: t.key }), 404, "not_found");

    // A new write: following from 4 gets it, from before 4 is still 410 (now naming it).
    await write(t.key, `/v1/projects/${project.id}`, "PATCH", { budget: 10 }); // 5
    expect(typedVersionsOf(expectSuccess(await api("/v1/events?after=4", { key: t.key })) as never)).toEqual([["project.updated", 5]]);
    await expectResync(t.org.id, () => api("/v1/events?after=3", { key: t.key }), 5);
    expect(typedVersionsOf(expectSuccess(await api(`/v1/projects/${project.id}/history`, { key: t.key })) as never)).toEqual([
      ["project.updated", 5],
    ]);
  });

  it("a person signed in gets the same 410", async () => {
    const person = await signUp();
    const project = (await asPerson(person.cookie, "/v1/projects", { body: projectBody() })).body.data; // 1
    expect((await asPerson(person.cookie, `/v1/projects/${project.id}`, { method: "PATCH", body: { budget: 2 } })).status).toBe(200); // 2
    await backdate(person.orgId, 1);
    await expectResync(person.orgId, () => asPerson(person.cookie, "/v1/events?after=0"), 2);
    expect(versionsOf(expectSuccess(await asPerson(person.cookie, "/v1/events?after=1")) as never)).toEqual([2]);
  });

  it("the sweep then drops the expired events the room acknowledged; the answers stay the same", () =>
    withRoom(async () => {
      const t = await createTenant();
      const project = await write(t.key, "/v1/projects", "POST", projectBody()); // 1
      await write(t.key, `/v1/projects/${project.id}`, "PATCH", { budget: 1 }); // 2
      await write(t.key, `/v1/projects/${project.id}`, "PATCH", { budget: 2 }); // 3
      expect(await waitForAcknowledged(t.org.id, 3)).toEqual([1, 2, 3]);
      await backdate(t.org.id, 2);
      // The sweep runs after /__scheduled answers (waitUntil): run it until the rows are gone.
      const left = await pollUntil(
        async () => {
          await runSweep(PRUNE_CRON);
          const rows = await query<{ change_version: string }>(
            "select change_version from events where org_id = $1 order by change_version",
            [t.org.id],
          );
          return rows.map((row) => Number(row.change_version));
        },
        (versions) => versions.length < 3,
        15_000,
      );
      expect(left).toEqual([3]);
      await expectResync(t.org.id, () => api("/v1/events?after=1", { key: t.key }), 3);
      expect(versionsOf(expectSuccess(await api("/v1/events?after=2", { key: t.key })) as never)).toEqual([3]);
      expect(versionsOf(expectSuccess(await api(`/v1/projects/${project.id}/history`, { key: t.key })) as never)).toEqual([3]);
    }));
});

// Workers of this file's own, on the harness's database.

let sqlEndpoint: SqlEndpoint;

beforeAll(async () => {
  const database = new URL(inject("databaseUrl"));
  sqlEndpoint = await startSqlEndpoint({ target: { host: database.hostname, port: Number(database.port || 5432) } });
}, 60_000);

afterAll(async () => {
  await sqlEndpoint?.close();
}, 60_000);

const workerWith = (retention: string) =>
  startTestWorker({ DATABASE_URL: inject("databaseUrl"), LOCAL_SQL_ENDPOINT: sqlEndpoint.address, EVENT_RETENTION_DAYS: retention });

/** A call to the test's own Worker, checked against the registry like every other answer. */
const callAt = (worker: TestWorker, path: string, options: { key: string; method?: Method; body?: unknown }): Promise<ApiResponse> =>
  api(path, { ...options, baseUrl: worker.url });

describe("a Worker with a retention of seconds (EVENT_RETENTION_DAYS=0.0001: 8.64 s, 9 once rounded)", () => {
  let worker: TestWorker;
  beforeAll(async () => {
    worker = await workerWith("0.0001");
  }, 120_000);
  afterAll(async () => {
    await worker?.dispose();
  }, 60_000);

  it("once the first events pass retention: 410 naming the first kept one, history without them; then none kept: current + 1", async () => {
    const tenant: Tenant = await createTenant();
    const at = (path: string, options: { method?: Method; body?: unknown } = {}) => callAt(worker, path, { key: tenant.key, ...options });
    const eventsAfter = (after: number) => at(`/v1/events?after=${after}`);

    // First batch: 1 project.created, 2 task.created.
    const project = (await at("/v1/projects", { body: projectBody() })).body.data;
    const created = await at("/v1/tasks", { body: await taskBody(tenant, { projectId: project.id }) });
    expect(created.status, created.text).toBe(201);
    const task = created.body.data;
    const fresh = await eventsAfter(0);
    expect(fresh.status, fresh.text).toBe(200);
    expect(versionsOf(fresh.body)).toEqual([1, 2]);

    // Wait until both pass retention (no sleep: the answer that says so is awaited). after=1 is
    // 410 only once the second has expired too (the first expires a moment earlier: after=0 is
    // 410 naming 2 in between).
    await pollUntil(
      () => eventsAfter(1),
      (r) => r.status === 410,
      30_000,
    );
    // None is kept now: the oldest is the current changeVersion + 1.
    for (const after of [0, 1]) expectError(await eventsAfter(after), 410, "resync_required", { oldestChangeVersion: 3, field: "after" });
    const caughtUp = await eventsAfter(2);
    expect(caughtUp.status, caughtUp.text).toBe(200);
    expect(caughtUp.body).toMatchObject({ count: 0, data: [], nextCursor: null, changeVersion: 2 });

    // Second batch, right away: 3 task.updated, 4 project.updated.
    const startedAt = Date.now();
    expect((await at(`/v1/tasks/${task.id}`, { method: "PATCH", body: { status: "in_progress" } })).status).toBe(200);
    expect((await at(`/v1/projects/${project.id}`, { method: "PATCH", body: { budget: 5 } })).status).toBe(200);
    for (const after of [0, 1]) expectError(await eventsAfter(after), 410, "resync_required", { oldestChangeVersion: 3 });
    const kept = await eventsAfter(2);
    expect(kept.status, kept.text).toBe(200);
    expect(typedVersionsOf(kept.body)).toEqual([
      ["task.updated", 3],
      ["project.updated", 4],
    ]);
    const history = await at(`/v1/tasks/${task.id}/history`);
    expect(history.status, history.text).toBe(200);
    expect(typedVersionsOf(history.body), "the creation expired").toEqual([["task.updated", 3]]);
    // The harness's Worker (30 days), on the same database, still lists both.
    expect(typedVersionsOf(expectSuccess(await api(`/v1/tasks/${task.id}/history`, { key: tenant.key })) as never)).toEqual([
      ["task.created", 2],
      ["task.updated", 3],
    ]);
    expect(versionsOf(expectSuccess(await api("/v1/events?after=0", { key: tenant.key })) as never)).toEqual([1, 2, 3, 4]);
    expect(Date.now() - startedAt, "the second batch was read well inside its retention").toBeLessThan(8_000);

    // Then the second batch passes too: nothing kept, the oldest is current + 1; after=current is still 200.
    await pollUntil(
      () => eventsAfter(3),
      (r) => r.status === 410,
      30_000,
    );
    for (const after of [0, 2, 3]) expectError(await eventsAfter(after), 410, "resync_required", { oldestChangeVersion: 5 });
    const current = await eventsAfter(4);
    expect(current.status, current.text).toBe(200);
    expect(current.body).toMatchObject({ count: 0, data: [], changeVersion: 4 });
    expect((await eventsAfter(9)).status).toBe(200);
    const empty = await at(`/v1/tasks/${task.id}/history`);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toMatchObject({ count: 0, data: [] });
  }, 90_000);
});
