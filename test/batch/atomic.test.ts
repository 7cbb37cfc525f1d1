import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { query, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { expectShape, milestoneBody, personBody, projectBody, unique } from "../helpers/resources.ts";
import { committed, expectCommitted, expectOneBatch, feed, sendBatch, type Operation } from "./helpers.ts";

// POST /v1/batch commits all of its operations, in order (docs/api.md "Batches"): each result is
// what the single call would have answered, each later operation sees the earlier ones, the
// changeVersions of its writes are consecutive (a no-op takes none) and every event carries the
// answer's batchId. The refusals, where nothing is written, are in refusals.test.ts.

const TASKS = 40;
const DELETED = 6;

/** 100 operations: a person, 3 projects with a milestone each, a risk, an issue, a financial entry, two PUTs by external id, changes of a project and a milestone, 40 tasks, their 40 patches, 6 deletes. */
function hundredOperations(externalId: string): { operations: Operation[]; expected: Array<[number, string]> } {
  const operations: Operation[] = [{ method: "POST", path: "/v1/personnel", ref: "lead", body: personBody() }];
  for (const p of [0, 1, 2]) {
    operations.push({ method: "POST", path: "/v1/projects", ref: `p${p}`, body: projectBody({ name: `Batch project ${p}` }) });
    operations.push({
      method: "POST",
      path: `/v1/projects/$p${p}.id/milestones`,
      ref: `m${p}`,
      body: milestoneBody({ name: `Milestone of ${p}` }),
    });
  }
  operations.push(
    { method: "POST", path: "/v1/risks", body: { title: "Van late", projectId: "$p0.id", ownerId: "$lead.id" } },
    { method: "POST", path: "/v1/issues", body: { title: "Lift broken", projectId: "$p1.id", assigneeId: "$lead.id" } },
    {
      method: "POST",
      path: "/v1/financial-entries",
      body: { projectId: "$p2.id", kind: "cost", amount: "99.50", currency: "EUR", date: "2026-03-31" },
    },
    { method: "PUT", path: `/v1/personnel/by-external-id/${externalId}`, body: personBody({ name: "Imported" }) },
    {
      method: "PUT",
      path: `/v1/personnel/by-external-id/${externalId}`,
      body: { name: "Imported, renamed", email: `renamed-${unique()}@example.test` },
    },
    { method: "PATCH", path: "/v1/projects/$p0.id", body: { status: "active" } },
    { method: "PATCH", path: "/v1/milestones/$m1.id", body: { status: "done" } },
  );
  for (let t = 0; t < TASKS; t++) {
    const p = t % 3;
    operations.push({
      method: "POST",
      path: "/v1/tasks",
      ref: `t${t}`,
      body: { title: `Task ${t}`, projectId: `$p${p}.id`, milestoneId: `$m${p}.id`, assigneeId: "$lead.id", dueDate: "2026-06-30" },
    });
  }
  for (let t = 0; t < TASKS; t++) operations.push({ method: "PATCH", path: `/v1/tasks/$t${t}.id`, body: { status: "in_progress" } });
  for (let t = 0; t < DELETED; t++) operations.push({ method: "DELETE", path: `/v1/tasks/$t${t}.id` });

  const expected: Array<[number, string]> = [
    [201, "personnel.created"],
    ...[0, 1, 2].flatMap((): Array<[number, string]> => [
      [201, "project.created"],
      [201, "milestone.created"],
    ]),
    [201, "risk.created"],
    [201, "issue.created"],
    [201, "financialEntry.created"],
    [201, "personnel.created"],
    [200, "personnel.updated"],
    [200, "project.updated"],
    [200, "milestone.updated"],
    ...Array.from({ length: TASKS }, (): [number, string] => [201, "task.created"]),
    ...Array.from({ length: TASKS }, (): [number, string] => [200, "task.updated"]),
    ...Array.from({ length: DELETED }, (): [number, string] => [200, "task.deleted"]),
  ];
  return { operations, expected };
}

describe("a batch commits every operation, in order", () => {
  it(
    "100 operations with references: each result in order, consecutive changeVersions, one batchId on every event",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      const externalId = `hr-${unique()}`;
      const { operations, expected } = hundredOperations(externalId);
      expect(operations).toHaveLength(100);
      const before = await snapshot(tenant.org.id);

      const answer = await committed(tenant.key, operations);
      expect(answer.data.map((r) => r.status)).toEqual(expected.map(([status]) => status));
      expect(answer.changeVersion, "the last changeVersion the batch produced").toBe(before.changeVersion + 100);

      // The references: every record names the ones created before it in the batch.
      const [lead, ...rest] = answer.data.map((r) => r.data);
      const projects = [rest[0]!, rest[2]!, rest[4]!];
      const milestones = [rest[1]!, rest[3]!, rest[5]!];
      expectShape(lead, "personnel");
      projects.forEach((p) => expectShape(p, "project"));
      milestones.forEach((m, i) => expect(m.projectId).toBe(projects[i]!.id));
      expect(answer.data[7]!.data).toMatchObject({ projectId: projects[0]!.id, ownerId: lead!.id });
      expect(answer.data[8]!.data).toMatchObject({ projectId: projects[1]!.id, assigneeId: lead!.id });
      expect(answer.data[9]!.data).toMatchObject({ projectId: projects[2]!.id, amount: "99.50" });
      // The second PUT changed what the first created.
      expect(answer.data[11]!.data).toMatchObject({ id: answer.data[10]!.data.id, externalId, name: "Imported, renamed", version: 2 });
      expect(answer.data[12]!.data).toMatchObject({ id: projects[0]!.id, status: "active", version: 2 });
      expect(answer.data[13]!.data).toMatchObject({ id: milestones[1]!.id, status: "done", version: 2 });
      const tasks = answer.data.slice(14, 14 + TASKS).map((r) => r.data);
      tasks.forEach((task, t) => {
        expectShape(task, "task");
        expect(task).toMatchObject({
          title: `Task ${t}`,
          projectId: projects[t % 3]!.id,
          milestoneId: milestones[t % 3]!.id,
          assigneeId: lead!.id,
          status: "todo",
          version: 1,
        });
      });
      const patches = answer.data.slice(14 + TASKS, 14 + 2 * TASKS).map((r) => r.data);
      patches.forEach((patch, t) => expect(patch).toMatchObject({ id: tasks[t]!.id, status: "in_progress", version: 2 }));
      // A delete answers the record as it was, after the patch earlier in the batch.
      const deletes = answer.data.slice(14 + 2 * TASKS).map((r) => r.data);
      deletes.forEach((gone, t) => expect(gone).toMatchObject({ id: tasks[t]!.id, status: "in_progress", version: 2 }));
      const createdIds = answer.data.filter((r) => r.status === 201).map((r) => r.data.id);
      expect(new Set(createdIds).size, "every create made a record of its own").toBe(11 + TASKS);

      // The feed: one event per operation, in the operations' order, each the record its result answered.
      const events = await feed(tenant.key, before.changeVersion);
      expect(events.map((e) => e.type)).toEqual(expected.map(([, type]) => type));
      expectOneBatch(answer, events);
      events.forEach((event, i) => {
        expect(event.data.id, `event ${i}`).toBe(answer.data[i]!.data.id);
        expect(event.actor).toEqual({ type: "key", id: tenant.keyId, name: tenant.application });
      });
      expect(events[12]!.changes).toEqual({ status: { from: "planned", to: "active" } });

      // And the database holds exactly that.
      const after = await snapshot(tenant.org.id);
      expect(after.changeVersion).toBe(before.changeVersion + 100);
      expect(after.events).toBe(before.events + 100);
      expect(after.rows).toMatchObject({
        personnel: 2,
        projects: 3,
        milestones: 3,
        risks: 1,
        issues: 1,
        financial_entries: 1,
        tasks: TASKS - DELETED,
      });
      const stored = await query<{ id: string; status: string; version: number }>(
        "select id, status, version from tasks where org_id = $1 order by id",
        [tenant.org.id],
      );
      expect(stored).toEqual(
        tasks
          .slice(DELETED)
          .map((t) => ({ id: t.id, status: "in_progress", version: 2 }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      );
    },
  );

  it("later operations see earlier ones: a workflow walked in one batch, If-Match on versions the batch made", async () => {
    const tenant = await createTenant();
    const person = await tenant.insertPerson();
    const project = await tenant.insertProject();
    const answer = await committed(tenant.key, [
      {
        method: "POST",
        path: "/v1/tasks",
        ref: "t",
        body: { title: "Walk", projectId: project.id, assigneeId: person.id, dueDate: "2026-06-30" },
      },
      { method: "PATCH", path: "/v1/tasks/$t.id", ifMatch: 1, body: { status: "in_progress" } },
      { method: "PATCH", path: "/v1/tasks/$t.id", ifMatch: '"2"', body: { status: "blocked" } },
      { method: "PATCH", path: "/v1/tasks/$t.id", ifMatch: 'W/"3"', body: { status: "in_progress" } },
      { method: "PATCH", path: "/v1/tasks/$t.id", ifMatch: 4, body: { status: "done" } },
    ]);
    expect(answer.data.map((r) => [r.status, r.data.status, r.data.version])).toEqual([
      [201, "todo", 1],
      [200, "in_progress", 2],
      [200, "blocked", 3],
      [200, "in_progress", 4],
      [200, "done", 5],
    ]);
    const events = await feed(tenant.key, 0);
    expect(events.map((e) => e.changes?.status ?? null)).toEqual([
      null,
      { from: "todo", to: "in_progress" },
      { from: "in_progress", to: "blocked" },
      { from: "blocked", to: "in_progress" },
      { from: "in_progress", to: "done" },
    ]);
    expectOneBatch(answer, events);
  });

  it("a no-op takes no changeVersion and writes no event; the writes around it stay consecutive", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject({ name: "Same" });
    const answer = await committed(tenant.key, [
      { method: "PATCH", path: `/v1/projects/${project.id}`, body: { name: "Same" } },
      { method: "POST", path: "/v1/projects", body: projectBody() },
      { method: "PATCH", path: `/v1/projects/${project.id}`, body: { name: "Same" } },
      { method: "PATCH", path: `/v1/projects/${project.id}`, body: { name: "Changed" } },
    ]);
    expect(answer.data.map((r) => [r.status, r.data.version])).toEqual([
      [200, 1],
      [201, 1],
      [200, 1],
      [200, 2],
    ]);
    expect(answer.changeVersion).toBe(2);
    const events = await feed(tenant.key, 0);
    expect(events.map((e) => e.type)).toEqual(["project.created", "project.updated"]);
    expectOneBatch(answer, events);
  });

  it("the records a batch creates sort by id in the order of its operations, as a list answers them", async () => {
    // One request: workerd's clock stands still through it, so only the ids' counter orders them (domain/ids.ts).
    const tenant = await createTenant();
    const answer = await committed(
      tenant.key,
      Array.from({ length: 20 }, () => ({ method: "POST", path: "/v1/projects", body: projectBody() })),
    );
    const ids = answer.data.map((r) => r.data.id as string);
    expect([...ids].sort()).toEqual(ids);
    const listed = expectSuccess(await api("/v1/projects?limit=50", { key: tenant.key }));
    expect(listed.data.map((p: { id: string }) => p.id)).toEqual(ids);
  });

  it("a batch of no-ops changes nothing: batchId null, the current changeVersion, no event", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject({ name: "Same" });
    await committed(tenant.key, [{ method: "POST", path: "/v1/projects", body: projectBody() }]);
    const before = await snapshot(tenant.org.id);
    const answer = await committed(tenant.key, [
      { method: "PATCH", path: `/v1/projects/${project.id}`, body: { name: "Same" } },
      { method: "PATCH", path: `/v1/projects/${project.id}`, body: {} },
    ]);
    expect(answer.batchId).toBeNull();
    expect(answer.changeVersion).toBe(1);
    expect(answer.data.map((r) => r.data.version)).toEqual([1, 1]);
    expect(await snapshot(tenant.org.id)).toEqual(before);
  });

  it(
    "a batch against concurrent single writes: its changeVersions stay consecutive, nothing interleaves",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      const operations: Operation[] = Array.from({ length: 50 }, (_, i) => ({
        method: "POST",
        path: "/v1/projects",
        body: projectBody({ name: `Batched ${i}` }),
      }));
      const [batch, ...singles] = await Promise.all([
        sendBatch(tenant.key, operations),
        ...Array.from({ length: 10 }, (_, i) => api("/v1/projects", { key: tenant.key, body: projectBody({ name: `Single ${i}` }) })),
      ]);
      singles.forEach((single) => expectSuccess(single, 201));
      const answer = expectCommitted(batch!, 50);
      const events = await feed(tenant.key, 0);
      expect(events.map((e) => e.changeVersion)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      const ofBatch = events.filter((e) => e.batchId !== null);
      expect(ofBatch.map((e) => e.data.name)).toEqual(operations.map((o) => (o.body as { name: string }).name));
      expectOneBatch(answer, ofBatch);
      expect(
        events
          .filter((e) => e.batchId === null)
          .map((e) => e.data.name)
          .sort(),
      ).toEqual(singles.map((s) => s.body.data.name).sort());
    },
  );
});
