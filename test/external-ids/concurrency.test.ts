import { describe, expect, it } from "vitest";
import { api, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { storedEvents } from "../helpers/resources.ts";
import { RESOURCES, byExternalId, newExternalId, type Body, type ExternalIdResource } from "./resources.ts";

// Concurrent PUTs of one new externalId (docs/api.md "External ids"): exactly one creates the
// record (201), every other one finds it and changes it (200): one row with that externalId,
// and the events are one <type>.created then an <type>.updated per PUT that changed something,
// at consecutive changeVersions, each update's `from` the value the one before it left.

const N = 20;

const resourceNamed = (name: string) => RESOURCES.find((r) => r.name === name)!;

/** N PUTs of one new externalId at once, the i-th with body(i); answers the responses and what they left. */
async function race(tenant: Tenant, resource: ExternalIdResource, body: (i: number) => Body) {
  const externalId = newExternalId("race");
  const before = await snapshot(tenant.org.id);
  const responses: ApiResponse[] = await Promise.all(
    Array.from({ length: N }, (_, i) => api(byExternalId(resource, externalId), { key: tenant.key, method: "PUT", body: body(i) })),
  );
  const unexpected = responses.filter((r) => r.status !== 200 && r.status !== 201).map((r) => `${r.status} ${r.text.slice(0, 300)}`);
  expect(unexpected, "every PUT answers 201 or 200").toEqual([]);
  expect(
    responses.filter((r) => r.status === 201),
    "exactly one 201",
  ).toHaveLength(1);

  const rows = await query<{ id: string; version: number }>(
    `select id, version from ${resource.table} where org_id = $1 and external_id = $2`,
    [tenant.org.id, externalId],
  );
  expect(rows, "one row with the externalId").toHaveLength(1);
  const id = rows[0]!.id;
  expect(new Set(responses.map((r) => (r.body as { data: { id: string } }).data.id))).toEqual(new Set([id]));
  const after = await snapshot(tenant.org.id);
  expect(after.rows[resource.table]).toBe(before.rows[resource.table]! + 1);

  const events = await storedEvents(tenant.org.id, before.changeVersion);
  expect(
    events.map((e) => e.changeVersion),
    "consecutive changeVersions",
  ).toEqual(events.map((_, i) => before.changeVersion + 1 + i));
  expect(after.changeVersion).toBe(before.changeVersion + events.length);
  expect(events[0]!.type).toBe(`${resource.type}.created`);
  expect(events.slice(1).map((e) => e.type)).toEqual(events.slice(1).map(() => `${resource.type}.updated`));
  expect(events.every((e) => e.data.id === id)).toBe(true);
  // The row's version counts the writes: 1 for the create, +1 per update.
  expect(rows[0]!.version).toBe(events.length);
  const created = responses.find((r) => r.status === 201)!;
  expect(expectSuccess(created, 201).data).toEqual(events[0]!.data);
  return { responses, events, id };
}

describe(`${N} concurrent PUTs of one new externalId`, () => {
  it("tasks, each with its own title: one 201, the rest 200; one task; task.created then N-1 task.updated chaining the titles", async () => {
    const tenant = await createTenant();
    const tasks = resourceNamed("tasks");
    const body = await tasks.put(tenant);
    const titles = Array.from({ length: N }, (_, i) => `Title ${i}`);
    const { events, id } = await race(tenant, tasks, (i) => ({ ...body, title: titles[i] }));

    expect(events).toHaveLength(N);
    // Each update saw the write before it: its `from` is the title the previous event left.
    for (let i = 1; i < N; i++) {
      expect(Object.keys(events[i]!.changes!)).toEqual(["title"]);
      expect(events[i]!.changes!.title!.from).toBe(events[i - 1]!.data.title);
      expect(events[i]!.changes!.title!.to).toBe(events[i]!.data.title);
    }
    expect(events.map((e) => e.data.title).sort()).toEqual([...titles].sort());
    const [row] = await query<{ title: string }>("select title from tasks where id = $1", [id]);
    expect(row!.title).toBe(events.at(-1)!.data.title);
  });

  it("projects, each with its own budget: one 201, the rest 200; one project; project.created then N-1 project.updated", async () => {
    const tenant = await createTenant();
    const projects = resourceNamed("projects");
    const body = await projects.put(tenant);
    const { events } = await race(tenant, projects, (i) => ({ ...body, budget: 1000 + i }));
    expect(events).toHaveLength(N);
    expect(events.map((e) => e.data.budget).sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => 1000 + i));
    for (let i = 1; i < N; i++)
      expect(events[i]!.changes).toEqual({ budget: { from: events[i - 1]!.data.budget, to: events[i]!.data.budget } });
  });

  it("personnel, all with one body: one 201, the rest 200 changing nothing; one person, one personnel.created and no other event", async () => {
    const tenant = await createTenant();
    const personnel = resourceNamed("personnel");
    const body = await personnel.put(tenant);
    const { responses, events } = await race(tenant, personnel, () => body);
    expect(events).toHaveLength(1);
    for (const response of responses) expect((response.body as { data: Body }).data).toEqual(events[0]!.data);
  });

  it("milestones, two bodies taking turns: one 201, the rest 200; the events are the created and the updates that changed the name", async () => {
    const tenant = await createTenant();
    const milestones = resourceNamed("milestones");
    const body = await milestones.put(tenant);
    const { events } = await race(tenant, milestones, (i) => ({ ...body, name: i % 2 === 0 ? "Even" : "Odd" }));
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events.length).toBeLessThanOrEqual(N);
    // An update is only written when the name moves, so the names alternate along the events.
    for (let i = 1; i < events.length; i++)
      expect(events[i]!.changes).toEqual({ name: { from: events[i - 1]!.data.name, to: events[i]!.data.name } });
  });
});

describe(`${N} concurrent writes claiming one externalId for different records`, () => {
  /** Exactly one succeeded with `status`; every other is 409 conflict on externalId. */
  function expectOneWinner(responses: ApiResponse[], status: number) {
    const others = responses.filter((r) => r.status !== status);
    expect(responses.length - others.length, responses.map((r) => `${r.status} ${r.text.slice(0, 120)}`).join("\n")).toBe(1);
    for (const response of others) {
      expect(response.status, response.text).toBe(409);
      expect(response.body.error).toMatchObject({ code: "conflict", field: "externalId" });
    }
  }

  it("PATCHes of N tasks to one externalId: one 200, N-1 409 conflict on externalId; only the winner has it, one event", async () => {
    const tenant = await createTenant();
    const [project, person] = [await tenant.insertProject(), await tenant.insertPerson()];
    const tasks = [];
    for (let i = 0; i < N; i++) tasks.push(await tenant.insertTask({ projectId: project.id, assigneeId: person.id }));
    const externalId = newExternalId("claimed");
    const before = await snapshot(tenant.org.id);
    const responses = await Promise.all(
      tasks.map((task) => api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { externalId } })),
    );
    expectOneWinner(responses, 200);
    const winner = responses.find((r) => r.status === 200)!.body.data as { id: string };
    const rows = await query<{ id: string }>("select id from tasks where org_id = $1 and external_id = $2", [tenant.org.id, externalId]);
    expect(rows.map((r) => r.id)).toEqual([winner.id]);
    const events = await storedEvents(tenant.org.id, before.changeVersion);
    expect(events.map((e) => [e.type, e.data.id, e.changes])).toEqual([
      ["task.updated", winner.id, { externalId: { from: null, to: externalId } }],
    ]);
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(before.changeVersion + 1);
  });

  it("POSTs of N tasks with one externalId: one 201, N-1 409 conflict on externalId; one task, one event", async () => {
    const tenant = await createTenant();
    const body = await resourceNamed("tasks").put(tenant);
    const externalId = newExternalId("claimed");
    const before = await snapshot(tenant.org.id);
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) => api("/v1/tasks", { key: tenant.key, body: { ...body, title: `Task ${i}`, externalId } })),
    );
    expectOneWinner(responses, 201);
    const after = await snapshot(tenant.org.id);
    expect(after.rows.tasks).toBe(before.rows.tasks! + 1);
    expect(after.changeVersion).toBe(before.changeVersion + 1);
    expect((await storedEvents(tenant.org.id, before.changeVersion)).map((e) => e.type)).toEqual(["task.created"]);
  });
});
