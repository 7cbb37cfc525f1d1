import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, expectOneWrite, expectRefused, expectShape, refusedCall, taskBody } from "../helpers/resources.ts";

// Tasks (docs/api.md "Records"): projectId, assigneeId and dueDate are
// required and never invented; references must name records of the caller's organisation (an
// active assignee, a milestone of the task's project). The workflow is in task-workflow.test.ts.

const taskId = async (tenant: Tenant) => (await tenant.insertTask()).id;

describeRefusals({ method: "GET", path: () => "/v1/tasks", scope: "tasks.read" });
describeRefusals({ method: "POST", path: () => "/v1/tasks", scope: "tasks.manage", body: (tenant) => taskBody(tenant) });
describeRefusals({ method: "GET", path: (id) => `/v1/tasks/${id}`, scope: "tasks.read", record: taskId });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/tasks/${id}`,
  scope: "tasks.manage",
  record: taskId,
  body: () => ({ title: "Renamed" }),
});
describeRefusals({ method: "DELETE", path: (id) => `/v1/tasks/${id}`, scope: "tasks.manage", record: taskId });

const taskCount = async (orgId: string) => (await snapshot(orgId)).rows.tasks;

describe("POST /v1/tasks", () => {
  it("saves exactly what was sent, with the defaults, and emits task.created", async () => {
    const tenant = await createTenant();
    const body = await taskBody(tenant, { title: "Book the removal van", dueDate: "2026-03-31" });
    const before = await snapshot(tenant.org.id);
    const response = await api("/v1/tasks", { key: tenant.key, body });
    const task = expectSuccess(response, 201).data;

    expectShape(task, "task");
    expect(task).toMatchObject({
      ...body,
      orgId: tenant.org.id,
      status: "todo",
      priority: "medium",
      milestoneId: null,
      description: null,
      version: 1,
    });
    expect(response.headers.get("etag")).toBe('"1"');
    const event = await expectOneWrite(tenant.org.id, before, "task.created");
    expect(event.data).toEqual(task);
    expect((await api(`/v1/tasks/${task.id}`, { key: tenant.key })).body.data).toEqual(task);
  });

  it("takes the optional fields: priority, status, description and a milestone of the project", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const milestone = await tenant.insertMilestone(project.id);
    const body = await taskBody(tenant, {
      projectId: project.id,
      milestoneId: milestone.id,
      priority: "urgent",
      status: "in_progress",
      description: "Two vans",
    });
    expect(await created(tenant.key, "/v1/tasks", body)).toMatchObject(body);
  });

  // Seed rule 1: each of these missing on its own is refused, and the service never supplies it.
  for (const field of ["projectId", "assigneeId", "dueDate", "title"]) {
    it(`without ${field}: 400 missing_field naming it, no task made`, async () => {
      const tenant = await createTenant();
      const { [field]: _omitted, ...body } = await taskBody(tenant);
      await refusedCall(tenant, "/v1/tasks", { body }, 400, "missing_field", { field });
      expect(await taskCount(tenant.org.id)).toBe(0);
    });

    it(`with ${field}: null: 400 naming it, no value invented`, async () => {
      const tenant = await createTenant();
      // Either code is fair for an explicit null; what matters is the refusal naming the field.
      await refusedCall(tenant, "/v1/tasks", { body: await taskBody(tenant, { [field]: null }) }, 400, ["missing_field", "invalid_field"], {
        field,
      });
      expect(await taskCount(tenant.org.id)).toBe(0);
    });
  }

  it("without all three seed fields: 400 missing_field, names one of them", async () => {
    const tenant = await createTenant();
    const response = await refusedCall(tenant, "/v1/tasks", { body: { title: "Orphan" } }, 400, "missing_field");
    expect(["projectId", "assigneeId", "dueDate"]).toContain(response.error.field);
  });

  const invalid: Array<[string, Record<string, unknown>, string, string?]> = [
    ["an unknown priority", { priority: "critical" }, "priority"],
    ["an unknown status", { status: "started" }, "status"],
    ["an impossible dueDate", { dueDate: "2026-02-30" }, "dueDate"],
    ["a dueDate in another format", { dueDate: "30/06/2026" }, "dueDate"],
    ["a projectId that is not a uuid", { projectId: "project-1" }, "projectId"],
    ["an assigneeId that is a number", { assigneeId: 42 }, "assigneeId"],
    ["a milestoneId that is not a uuid", { milestoneId: "m1" }, "milestoneId"],
    ["an empty title", { title: "" }, "title"],
    ["a 201-character title", { title: "t".repeat(201) }, "title"],
    ["an unknown field", { estimate: 3 }, "estimate", "unknown_field"],
    ["an orgId", { orgId: randomUUID() }, "orgId", "unknown_field"],
  ];
  for (const [label, fields, field, code = "invalid_field"] of invalid) {
    it(`with ${label}: 400 ${code} naming ${field}`, async () => {
      const tenant = await createTenant();
      await refusedCall(tenant, "/v1/tasks", { body: await taskBody(tenant, fields) }, 400, code, { field });
    });
  }
});

describe("task references", () => {
  /** The caller, another organisation, and a body whose references `arrange` corrupts. */
  const cases: Array<[string, string, (a: Tenant, b: Tenant) => Promise<Record<string, unknown>>]> = [
    ["a project of another organisation", "projectId", async (_a, b) => ({ projectId: (await b.insertProject()).id })],
    ["a project that does not exist", "projectId", async () => ({ projectId: randomUUID() })],
    ["a person of another organisation", "assigneeId", async (_a, b) => ({ assigneeId: (await b.insertPerson()).id })],
    ["a person who does not exist", "assigneeId", async () => ({ assigneeId: randomUUID() })],
    ["an inactive person", "assigneeId", async (a) => ({ assigneeId: (await a.insertPerson({ active: false })).id })],
    [
      "a milestone of another organisation",
      "milestoneId",
      async (_a, b) => ({ milestoneId: (await b.insertMilestone((await b.insertProject()).id)).id }),
    ],
    ["a milestone that does not exist", "milestoneId", async () => ({ milestoneId: randomUUID() })],
    [
      "a milestone of another project",
      "milestoneId",
      async (a) => ({ milestoneId: (await a.insertMilestone((await a.insertProject()).id)).id }),
    ],
  ];

  for (const [label, field, arrange] of cases) {
    it(`create naming ${label}: 400 invalid_reference ${field}, neither organisation changes`, async () => {
      const [a, b] = [await createTenant(), await createTenant()];
      const body = await taskBody(a, await arrange(a, b));
      await expectRefused([a.org.id, b.org.id], () => api("/v1/tasks", { key: a.key, body }), 400, "invalid_reference", { field });
    });
  }

  for (const [label, field, arrange] of cases.filter(([, field]) => field !== "projectId")) {
    it(`PATCH naming ${label}: 400 invalid_reference ${field}, neither organisation changes`, async () => {
      const [a, b] = [await createTenant(), await createTenant()];
      const task = await a.insertTask();
      const body = await arrange(a, b);
      await expectRefused(
        [a.org.id, b.org.id],
        () => api(`/v1/tasks/${task.id}`, { key: a.key, method: "PATCH", body }),
        400,
        "invalid_reference",
        {
          field,
        },
      );
    });
  }

  it("a task keeps its project: projectId is not a changeable field", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    const other = await tenant.insertProject();
    await refusedCall(tenant, `/v1/tasks/${task.id}`, { method: "PATCH", body: { projectId: other.id } }, 400, "unknown_field", {
      field: "projectId",
    });
  });
});

describe("PATCH /v1/tasks/:id", () => {
  it("changes several fields at once; the event lists exactly those with from/to", async () => {
    const tenant = await createTenant();
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { priority: "low" }));
    const milestone = await tenant.insertMilestone(task.projectId);
    const person = await tenant.insertPerson();
    const before = await snapshot(tenant.org.id);
    const body = { title: "Renamed", priority: "high", milestoneId: milestone.id, assigneeId: person.id, dueDate: "2026-07-01" };
    const response = await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body });
    const changed = expectSuccess(response).data;

    expectShape(changed, "task");
    expect(changed).toEqual({ ...task, ...body, version: 2, updatedAt: changed.updatedAt });
    expect(response.headers.get("etag")).toBe('"2"');
    const event = await expectOneWrite(tenant.org.id, before, "task.updated");
    expect(event.changes).toEqual({
      title: { from: task.title, to: "Renamed" },
      priority: { from: "low", to: "high" },
      milestoneId: { from: null, to: milestone.id },
      assigneeId: { from: task.assigneeId, to: person.id },
      dueDate: { from: task.dueDate, to: "2026-07-01" },
    });
    expect(event.data).toEqual(changed);
  });

  it("clears the milestone and the description with null", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const milestone = await tenant.insertMilestone(project.id);
    const task = await tenant.insertTask({ projectId: project.id, milestoneId: milestone.id, description: "x" });
    const response = await api(`/v1/tasks/${task.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { milestoneId: null, description: null },
    });
    expect(expectSuccess(response).data).toMatchObject({ milestoneId: null, description: null, version: 2 });
  });

  it("a patch that changes nothing answers 200 without a new version or event", async () => {
    const tenant = await createTenant();
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { priority: "high" }));
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/tasks/${task.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { title: task.title, priority: "high", status: "todo", dueDate: task.dueDate, milestoneId: null },
    });
    expect(expectSuccess(response).data).toEqual(task);
    expect(response.headers.get("etag")).toBe('"1"');
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("If-Match: the current version writes, a stale one is 412 and writes nothing", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    const path = `/v1/tasks/${task.id}`;
    const ok = await api(path, { key: tenant.key, method: "PATCH", body: { title: "v2" }, headers: { "if-match": 'W/"1"' } });
    expect(ok.headers.get("etag")).toBe(`"${expectSuccess(ok).data.version}"`);
    expect(ok.headers.get("etag")).toBe('"2"');
    await refusedCall(tenant, path, { method: "PATCH", body: { title: "v3" }, headers: { "if-match": '"1"' } }, 412, "precondition_failed");
    await refusedCall(tenant, path, { method: "DELETE", headers: { "if-match": '"3"' } }, 412, "precondition_failed");
    // "*" asks for no particular version.
    const any = await api(path, { key: tenant.key, method: "PATCH", body: { title: "v3" }, headers: { "if-match": "*" } });
    expect(any.headers.get("etag")).toBe('"3"');
  });
});

describe("DELETE /v1/tasks/:id", () => {
  it("removes the task and emits task.deleted with the record as it was", async () => {
    const tenant = await createTenant();
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant));
    const before = await snapshot(tenant.org.id);
    expect(expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "DELETE" })).data).toEqual(task);
    expect((await expectOneWrite(tenant.org.id, before, "task.deleted")).data).toEqual(task);
    expect(await query("select 1 from tasks where id = $1", [task.id])).toEqual([]);
    await refusedCall(tenant, `/v1/tasks/${task.id}`, { method: "DELETE" }, 404, "not_found");
  });
});

describe("malformed task ids", () => {
  for (const [method, id] of [
    ["GET", "123"],
    ["PATCH", "not-a-uuid"],
    ["DELETE", "0198c0a0-0000-7000-8000-00000000000"],
  ] as const) {
    it(`${method} /v1/tasks/${id}: 400 invalid_field id`, async () => {
      const tenant = await createTenant();
      await refusedCall(
        tenant,
        `/v1/tasks/${id}`,
        { method, body: method === "PATCH" ? { title: "x" } : undefined },
        400,
        "invalid_field",
        {
          field: "id",
        },
      );
    });
  }
});
