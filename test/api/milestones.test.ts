import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, expectOneWrite, expectShape, milestoneBody, refusedCall } from "../helpers/resources.ts";

// Milestones (docs/api.md "Records"): they belong to the project in the path, name and dueDate are
// required, status defaults to open, and a milestone a task points at cannot be removed.

const projectId = async (tenant: Tenant) => (await tenant.insertProject()).id;
const milestoneId = async (tenant: Tenant) => (await tenant.insertMilestone((await tenant.insertProject()).id)).id;

describeRefusals({ method: "GET", path: (id) => `/v1/projects/${id}/milestones`, scope: "projects.read", record: projectId });
describeRefusals({
  method: "POST",
  path: (id) => `/v1/projects/${id}/milestones`,
  scope: "projects.manage",
  record: projectId,
  body: () => milestoneBody(),
});
describeRefusals({ method: "GET", path: (id) => `/v1/milestones/${id}`, scope: "projects.read", record: milestoneId });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/milestones/${id}`,
  scope: "projects.manage",
  record: milestoneId,
  body: () => ({ status: "done" }),
});
describeRefusals({ method: "DELETE", path: (id) => `/v1/milestones/${id}`, scope: "projects.manage", record: milestoneId });

describe("POST /v1/projects/:id/milestones", () => {
  it("adds a milestone to the project in the path, status open, and emits milestone.created", async () => {
    const tenant = await createTenant({ scopes: ["projects.manage"] });
    const project = await tenant.insertProject();
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/projects/${project.id}/milestones`, {
      key: tenant.key,
      body: { name: "Lease signed", dueDate: "2026-04-30" },
    });
    const milestone = expectSuccess(response, 201).data;

    expectShape(milestone, "milestone");
    expect(milestone).toMatchObject({
      orgId: tenant.org.id,
      projectId: project.id,
      name: "Lease signed",
      dueDate: "2026-04-30",
      status: "open",
      description: null,
      version: 1,
    });
    expect(response.headers.get("etag")).toBe('"1"');
    expect((await expectOneWrite(tenant.org.id, before, "milestone.created")).data).toEqual(milestone);
    expect((await api(`/v1/milestones/${milestone.id}`, { key: tenant.key })).body.data).toEqual(milestone);
  });

  it("to a project that does not exist: 404 not_found, nothing written", async () => {
    const tenant = await createTenant();
    await refusedCall(tenant, `/v1/projects/${randomUUID()}/milestones`, { body: milestoneBody() }, 404, "not_found");
  });

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ["without name", { name: undefined }, "name", "missing_field"],
    ["without dueDate", { dueDate: undefined }, "dueDate", "missing_field"],
    ["with an unknown status", { status: "closed" }, "status", "invalid_field"],
    ["with an impossible dueDate", { dueDate: "2026-04-31" }, "dueDate", "invalid_field"],
    ["with a blank name", { name: " " }, "name", "invalid_field"],
    ["with projectId in the body (it comes from the path)", { projectId: randomUUID() }, "projectId", "unknown_field"],
  ];
  for (const [label, fields, field, code] of invalid) {
    it(`${label}: 400 ${code} naming ${field}, nothing written`, async () => {
      const tenant = await createTenant();
      const project = await tenant.insertProject();
      await refusedCall(tenant, `/v1/projects/${project.id}/milestones`, { body: milestoneBody(fields) }, 400, code, { field });
    });
  }
});

describe("GET /v1/projects/:id/milestones", () => {
  it("lists only that project's milestones, in creation order, filtered by status", async () => {
    const tenant = await createTenant({ scopes: ["projects.read"] });
    const [project, other] = [await tenant.insertProject(), await tenant.insertProject()];
    const open = await tenant.insertMilestone(project.id);
    const done = await tenant.insertMilestone(project.id, { status: "done" });
    await tenant.insertMilestone(other.id);

    const all = expectSuccess(await api(`/v1/projects/${project.id}/milestones`, { key: tenant.key }));
    expect(all.data.map((m: { id: string }) => m.id)).toEqual([open.id, done.id]);
    expect(all).toMatchObject({ count: 2, message: "2 milestones", nextCursor: null });
    all.data.forEach((m: unknown) => expectShape(m, "milestone"));

    const filtered = expectSuccess(await api(`/v1/projects/${project.id}/milestones?status=done,cancelled`, { key: tenant.key }));
    expect(filtered).toMatchObject({ count: 1, message: "1 milestone", data: [{ id: done.id }] });
  });

  it("an unknown status filter: 400 invalid_field naming the query parameter status", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    await refusedCall(tenant, `/v1/projects/${project.id}/milestones?status=late`, {}, 400, "invalid_field", { field: "status" });
  });

  it("of a project that does not exist: 404 not_found", async () => {
    const tenant = await createTenant();
    await refusedCall(tenant, `/v1/projects/${randomUUID()}/milestones`, {}, 404, "not_found");
  });
});

describe("PATCH /v1/milestones/:id", () => {
  it("changes what is sent; the event lists exactly those fields; a repeat is a no-op", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const milestone = await created(tenant.key, `/v1/projects/${project.id}/milestones`, milestoneBody());
    const before = await snapshot(tenant.org.id);
    const body = { status: "done", dueDate: "2026-05-15", description: "Signed early" };
    const response = await api(`/v1/milestones/${milestone.id}`, { key: tenant.key, method: "PATCH", body });
    const changed = expectSuccess(response).data;
    expect(changed).toEqual({ ...milestone, ...body, version: 2, updatedAt: changed.updatedAt });
    expect(response.headers.get("etag")).toBe('"2"');
    expect((await expectOneWrite(tenant.org.id, before, "milestone.updated")).changes).toEqual({
      status: { from: "open", to: "done" },
      dueDate: { from: milestone.dueDate, to: "2026-05-15" },
      description: { from: null, to: "Signed early" },
    });

    const settled = await snapshot(tenant.org.id);
    const again = await api(`/v1/milestones/${milestone.id}`, { key: tenant.key, method: "PATCH", body });
    expect(expectSuccess(again).data).toEqual(changed);
    expectNoTrace(settled, await snapshot(tenant.org.id));
  });

  it("refuses a stale If-Match (412) and an unknown field (400), writing nothing", async () => {
    const tenant = await createTenant();
    const id = await milestoneId(tenant);
    const path = `/v1/milestones/${id}`;
    await refusedCall(tenant, path, { method: "PATCH", body: { name: "x" }, headers: { "if-match": '"2"' } }, 412, "precondition_failed");
    await refusedCall(tenant, path, { method: "PATCH", body: { projectId: randomUUID() } }, 400, "unknown_field", { field: "projectId" });
    await refusedCall(tenant, path, { method: "PATCH", body: { status: "late" } }, 400, "invalid_field", { field: "status" });
  });
});

describe("DELETE /v1/milestones/:id", () => {
  it("is refused while a task points at it (409 conflict), allowed once none does", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const milestone = await created(tenant.key, `/v1/projects/${project.id}/milestones`, milestoneBody());
    const task = await tenant.insertTask({ projectId: project.id, milestoneId: milestone.id });
    await refusedCall(tenant, `/v1/milestones/${milestone.id}`, { method: "DELETE" }, 409, "conflict");

    await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { milestoneId: null } });
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/milestones/${milestone.id}`, { key: tenant.key, method: "DELETE" });
    expect(expectSuccess(response).data).toEqual(milestone);
    expect((await expectOneWrite(tenant.org.id, before, "milestone.deleted")).data).toEqual(milestone);
    expect((await api(`/v1/milestones/${milestone.id}`, { key: tenant.key })).status).toBe(404);
  });
});

describe("malformed milestone ids", () => {
  const paths: Array<[string, string]> = [
    ["GET", "/v1/milestones/abc"],
    ["PATCH", "/v1/milestones/abc"],
    ["DELETE", "/v1/milestones/abc"],
    ["GET", "/v1/projects/abc/milestones"],
    ["POST", "/v1/projects/abc/milestones"],
  ];
  for (const [method, path] of paths) {
    it(`${method} ${path}: 400 invalid_field id`, async () => {
      const tenant = await createTenant();
      const body = method === "PATCH" || method === "POST" ? milestoneBody() : undefined;
      await refusedCall(tenant, path, { method: method as "GET", body }, 400, "invalid_field", { field: "id" });
    });
  }
});
