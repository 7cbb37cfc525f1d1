import { describe, expect, it } from "vitest";
import { api, type ApiResponse } from "../helpers/api.ts";
import { query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { milestoneBody, personBody, projectBody, storedEvents, taskBody } from "../helpers/resources.ts";

// Atomicity under concurrency (docs/api.md "changeVersion and events"): N concurrent successful writes
// in one organisation move changeVersion by exactly N and leave N events whose changeVersions
// are distinct and contiguous, each carrying the record its write produced.

const N = 40;

function expectAll(responses: ApiResponse[], status: number) {
  const wrong = responses.filter((r) => r.status !== status).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
  expect(wrong, `every concurrent write answers ${status}`).toEqual([]);
}

/** changeVersion moved by exactly `n`; the new events are before+1..before+n, of the given types. */
async function expectContiguous(tenant: Tenant, before: number, n: number, types: string[]) {
  expect((await snapshot(tenant.org.id)).changeVersion).toBe(before + n);
  const events = await storedEvents(tenant.org.id, before);
  expect(events.map((e) => e.changeVersion)).toEqual(Array.from({ length: n }, (_, i) => before + 1 + i));
  expect([...new Set(events.map((e) => e.type))].sort()).toEqual([...types].sort());
  return events;
}

describe(`${N} concurrent writes in one organisation`, () => {
  it("PATCHes to different tasks: +N changeVersion, N contiguous events, one per task", async () => {
    const tenant = await createTenant();
    const [project, person] = [await tenant.insertProject(), await tenant.insertPerson()];
    const tasks = [];
    for (let i = 0; i < N; i++) tasks.push(await tenant.insertTask({ projectId: project.id, assigneeId: person.id }));
    const before = (await snapshot(tenant.org.id)).changeVersion;

    const titles = tasks.map((_, i) => (i % 2 === 0 ? `Even ${i}` : `Odd ${i}`));
    const responses = await Promise.all(
      tasks.map((task, i) => api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { title: titles[i] } })),
    );
    expectAll(responses, 200);

    const events = await expectContiguous(tenant, before, N, ["task.updated"]);
    expect(events.map((e) => e.data.id).sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const event of events) {
      const i = tasks.findIndex((t) => t.id === event.data.id);
      expect(event.changes).toEqual({ title: { from: tasks[i]!.title, to: titles[i] } });
    }
    expect(await query("select distinct version from tasks where org_id = $1", [tenant.org.id])).toEqual([{ version: 2 }]);
  });

  it("PATCHes to the same task: all succeed, serialised; the events chain from one title to the next", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask({ title: "Start" });
    const before = (await snapshot(tenant.org.id)).changeVersion;

    const titles = Array.from({ length: N }, (_, i) => `Title ${i}`);
    const responses = await Promise.all(
      titles.map((title) => api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { title } })),
    );
    expectAll(responses, 200);
    expect(responses.map((r) => r.body.data.version).sort((x, y) => x - y)).toEqual(Array.from({ length: N }, (_, i) => i + 2));

    const events = await expectContiguous(tenant, before, N, ["task.updated"]);
    // Each write saw the one before it: from = the previous write's to.
    expect(events.map((e) => e.changes!.title!.from)).toEqual(["Start", ...events.slice(0, -1).map((e) => e.changes!.title!.to)]);
    expect(events.map((e) => e.changes!.title!.to).sort()).toEqual([...titles].sort());
    expect(events.map((e) => e.data.version)).toEqual(Array.from({ length: N }, (_, i) => i + 2));
    const [row] = await query<{ title: string; version: number }>("select title, version from tasks where id = $1", [task.id]);
    expect(row).toEqual({ title: events.at(-1)!.changes!.title!.to, version: N + 1 });
  });

  it("creates of tasks: +N changeVersion, N contiguous task.created events, N tasks", async () => {
    const tenant = await createTenant();
    const body = await taskBody(tenant);
    const before = (await snapshot(tenant.org.id)).changeVersion;

    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) => api("/v1/tasks", { key: tenant.key, body: { ...body, title: `Task ${i}` } })),
    );
    expectAll(responses, 201);

    const events = await expectContiguous(tenant, before, N, ["task.created"]);
    expect(events.map((e) => e.data.id).sort()).toEqual(responses.map((r) => r.body.data.id).sort());
    expect((await snapshot(tenant.org.id)).rows.tasks).toBe(N);
  });

  it("creates and updates across resources: still +N and contiguous", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const task = await tenant.insertTask({ projectId: project.id });
    const before = (await snapshot(tenant.org.id)).changeVersion;

    const calls = Array.from({ length: N }, (_, i) => {
      switch (i % 4) {
        case 0:
          return api("/v1/projects", { key: tenant.key, body: projectBody() });
        case 1:
          return api(`/v1/projects/${project.id}/milestones`, { key: tenant.key, body: milestoneBody() });
        case 2:
          return api("/v1/personnel", { key: tenant.key, body: personBody() });
        default:
          return api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { description: `Step ${i}` } });
      }
    });
    const responses = await Promise.all(calls);
    expect(responses.map((r) => r.status).filter((s) => s !== 200 && s !== 201)).toEqual([]);
    await expectContiguous(tenant, before, N, ["project.created", "milestone.created", "personnel.created", "task.updated"]);
  });
});
