import { beforeAll, describe, expect, it } from "vitest";
import { api, expectSuccess, type Method } from "../helpers/api.ts";
import { snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { created, expectRefused, milestoneBody, personBody, projectBody, storedEvents, taskBody } from "../helpers/resources.ts";

// Tenancy (docs/api.md "Envelope and errors": another organisation's id is 404, its existence never revealed):
// organisation B's key, holding every scope, never sees or changes organisation A's records or
// events. A is built through the API, so it has events of every kind.

let a: Tenant;
let b: Tenant;
const ofA: Record<"project" | "milestone" | "person" | "task", string> = { project: "", milestone: "", person: "", task: "" };
const ofB: Record<string, string> = {};

beforeAll(async () => {
  [a, b] = [await createTenant(), await createTenant()];
  for (const [tenant, into] of [
    [a, ofA],
    [b, ofB],
  ] as const) {
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const milestone = await created(tenant.key, `/v1/projects/${project.id}/milestones`, milestoneBody());
    const person = await created(tenant.key, "/v1/personnel", personBody());
    const task = await created(
      tenant.key,
      "/v1/tasks",
      await taskBody(tenant, { projectId: project.id, assigneeId: person.id, milestoneId: milestone.id }),
    );
    Object.assign(into, { project: project.id, milestone: milestone.id, person: person.id, task: task.id });
  }
});

const ids = (page: { data: Array<{ id: string }> }) => page.data.map((record) => record.id);

describe("organisation B's key and organisation A's data", () => {
  it("lists show B's records only", async () => {
    const list = async (path: string) => ids(expectSuccess(await api(path, { key: b.key })));
    expect(await list("/v1/projects")).toEqual([ofB.project]);
    expect(await list(`/v1/projects/${ofB.project}/milestones`)).toEqual([ofB.milestone]);
    expect(await list("/v1/personnel")).toEqual([ofB.person]);
    expect(await list("/v1/tasks")).toEqual([ofB.task]);
    // Filters naming A's records find nothing rather than A's tasks.
    for (const filter of [`projectId=${ofA.project}`, `assigneeId=${ofA.person}`, `milestoneId=${ofA.milestone}`]) {
      expect(await list(`/v1/tasks?${filter}`)).toEqual([]);
    }
  });

  it("events show B's changes only, and GET /v1 and /v1/organisation describe B", async () => {
    const events = expectSuccess(await api("/v1/events", { key: b.key }));
    expect(events.data.map((e: { orgId: string }) => e.orgId)).toEqual([b.org.id, b.org.id, b.org.id, b.org.id]);
    expect((await api("/v1", { key: b.key })).body).toMatchObject({ organisation: b.org.id, changeVersion: 4 });
    expect((await api("/v1/organisation", { key: b.key })).body.data).toMatchObject({ id: b.org.id, changeVersion: 4 });
  });

  const calls: Array<[Method, (id: Record<string, string>) => string, unknown?]> = [
    ["GET", (r) => `/v1/projects/${r.project}`],
    ["PATCH", (r) => `/v1/projects/${r.project}`, { name: "Taken over" }],
    ["DELETE", (r) => `/v1/projects/${r.project}`],
    ["GET", (r) => `/v1/projects/${r.project}/milestones`],
    ["POST", (r) => `/v1/projects/${r.project}/milestones`, milestoneBody()],
    ["GET", (r) => `/v1/milestones/${r.milestone}`],
    ["PATCH", (r) => `/v1/milestones/${r.milestone}`, { status: "cancelled" }],
    ["DELETE", (r) => `/v1/milestones/${r.milestone}`],
    ["GET", (r) => `/v1/tasks/${r.task}`],
    ["PATCH", (r) => `/v1/tasks/${r.task}`, { status: "in_progress" }],
    ["DELETE", (r) => `/v1/tasks/${r.task}`],
    ["GET", (r) => `/v1/personnel/${r.person}`],
    ["PATCH", (r) => `/v1/personnel/${r.person}`, { active: false }],
  ];
  for (const [method, path, body] of calls) {
    it(`${method} ${path({ project: ":A", milestone: ":A", task: ":A", person: ":A" })}: 404, neither organisation changes`, async () => {
      // The same call on B's own record succeeds, so the 404 is about the organisation alone
      // (deletes are not tried on B: B's records have dependants).
      if (method !== "DELETE") expect((await api(path(ofB), { key: b.key, method, body })).status).toBeLessThan(300);
      const eventsOfA = await storedEvents(a.org.id);
      await expectRefused([a.org.id, b.org.id], () => api(path(ofA), { key: b.key, method, body }), 404, "not_found");
      expect(await storedEvents(a.org.id)).toEqual(eventsOfA);
    });
  }

  it("B's writes move B's changeVersion only", async () => {
    const [beforeA, beforeB] = [await snapshot(a.org.id), await snapshot(b.org.id)];
    await created(b.key, "/v1/projects", projectBody());
    expect((await snapshot(b.org.id)).changeVersion).toBe(beforeB.changeVersion + 1);
    expect(await snapshot(a.org.id)).toEqual(beforeA);
  });
});
