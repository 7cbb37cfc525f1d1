import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, expectOneWrite, expectShape, projectBody, refusedCall } from "../helpers/resources.ts";

// Projects (docs/api.md "Records"): the four required fields,
// budget 0 meaning "no budget", ordered dates, If-Match, and delete refused while dependants exist.

const projectId = async (tenant: Awaited<ReturnType<typeof createTenant>>) => (await tenant.insertProject()).id;

describeRefusals({ method: "GET", path: () => "/v1/projects", scope: "projects.read" });
describeRefusals({ method: "POST", path: () => "/v1/projects", scope: "projects.manage", body: () => projectBody() });
describeRefusals({ method: "GET", path: (id) => `/v1/projects/${id}`, scope: "projects.read", record: projectId });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/projects/${id}`,
  scope: "projects.manage",
  record: projectId,
  body: () => ({ name: "Renamed" }),
});
describeRefusals({ method: "DELETE", path: (id) => `/v1/projects/${id}`, scope: "projects.manage", record: projectId });

describe("POST /v1/projects", () => {
  it("creates a project with the defaults, an ETag and one project.created event", async () => {
    const tenant = await createTenant();
    const before = await snapshot(tenant.org.id);
    const response = await api("/v1/projects", { key: tenant.key, body: projectBody({ name: "Warehouse move", budget: 1234.5 }) });
    const project = expectSuccess(response, 201).data;

    expectShape(project, "project");
    expect(project).toMatchObject({
      orgId: tenant.org.id,
      name: "Warehouse move",
      budget: 1234.5,
      startDate: "2026-01-01",
      endDate: "2026-12-31",
      status: "planned",
      description: null,
      version: 1,
    });
    expect(response.headers.get("etag")).toBe('"1"');
    const event = await expectOneWrite(tenant.org.id, before, "project.created");
    expect(event.data).toEqual(project);
    expect(event.changes).toBeNull();
  });

  it("accepts budget 0 (no budget)", async () => {
    const tenant = await createTenant();
    expect((await created(tenant.key, "/v1/projects", projectBody({ budget: 0 }))).budget).toBe(0);
  });

  it("accepts endDate equal to startDate", async () => {
    const tenant = await createTenant();
    const project = await created(tenant.key, "/v1/projects", projectBody({ startDate: "2026-05-05", endDate: "2026-05-05" }));
    expect(project).toMatchObject({ startDate: "2026-05-05", endDate: "2026-05-05" });
  });

  // Seed rule 2: each required field missing on its own is refused, naming it; nothing is invented.
  for (const field of ["name", "budget", "startDate", "endDate"]) {
    it(`without ${field}: 400 missing_field naming it, nothing written`, async () => {
      const tenant = await createTenant();
      const { [field]: _omitted, ...body } = projectBody();
      await refusedCall(tenant, "/v1/projects", { body }, 400, "missing_field", { field });
    });
  }

  const invalid: Array<[string, Record<string, unknown>, string, string?]> = [
    ["a negative budget", { budget: -1 }, "budget"],
    ["a budget with 3 decimals", { budget: 10.125 }, "budget"],
    ["a budget sent as a string", { budget: "100" }, "budget"],
    ["a null budget", { budget: null }, "budget"],
    ["an empty name", { name: "" }, "name"],
    ["a blank name", { name: "   " }, "name"],
    ["a 201-character name", { name: "x".repeat(201) }, "name"],
    ["an impossible date", { startDate: "2026-13-01" }, "startDate"],
    ["a timestamp as a date", { endDate: "2026-12-31T00:00:00Z" }, "endDate"],
    ["endDate before startDate", { startDate: "2026-06-01", endDate: "2026-05-31" }, "endDate"],
    ["an unknown status", { status: "archived" }, "status"],
    // Valid ISO 8601 text that Postgres cannot store: a 400, never a 500.
    ["a date in year 0000", { startDate: "0000-01-01" }, "startDate"],
    ["a NUL character in the name", { name: "Ware\u0000house" }, "name"],
    ["an unknown field", { owner: "ada" }, "owner", "unknown_field"],
    ["a read-only field", { version: 5 }, "version", "unknown_field"],
  ];
  for (const [label, fields, field, code = "invalid_field"] of invalid) {
    it(`with ${label}: 400 ${code} naming ${field}, nothing written`, async () => {
      const tenant = await createTenant();
      await refusedCall(tenant, "/v1/projects", { body: projectBody(fields) }, 400, code, { field });
    });
  }

  it("keeps a budget with 2 decimals exactly and takes every status", async () => {
    const tenant = await createTenant();
    for (const status of ["planned", "active", "on_hold", "completed", "cancelled"]) {
      const project = await created(tenant.key, "/v1/projects", projectBody({ budget: 99999.99, status }));
      expect(project).toMatchObject({ budget: 99999.99, status });
    }
  });
});

describe("GET /v1/projects/:id", () => {
  it("answers the project with its version as the ETag", async () => {
    const tenant = await createTenant();
    const project = await created(tenant.key, "/v1/projects", projectBody({ description: "Move everything" }));
    const response = await api(`/v1/projects/${project.id}`, { key: tenant.key });
    expect(expectSuccess(response).data).toEqual(project);
    expect(response.headers.get("etag")).toBe('"1"');
  });
});

describe("PATCH /v1/projects/:id", () => {
  it("changes only what is sent, bumps version and emits changes with from/to", async () => {
    const tenant = await createTenant();
    const project = await created(tenant.key, "/v1/projects", projectBody({ budget: 100 }));
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/projects/${project.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { budget: 250.5, status: "active" },
    });
    const changed = expectSuccess(response).data;

    expectShape(changed, "project");
    expect(changed).toEqual({ ...project, budget: 250.5, status: "active", version: 2, updatedAt: changed.updatedAt });
    expect(response.headers.get("etag")).toBe('"2"');
    const event = await expectOneWrite(tenant.org.id, before, "project.updated");
    expect(event.changes).toEqual({ budget: { from: 100, to: 250.5 }, status: { from: "planned", to: "active" } });
    expect(event.data).toEqual(changed);
  });

  it("a patch that changes nothing answers 200 without a new version or event", async () => {
    const tenant = await createTenant();
    const project = await created(tenant.key, "/v1/projects", projectBody({ budget: 100 }));
    const before = await snapshot(tenant.org.id);
    for (const body of [{ name: project.name, budget: 100.0, status: "planned" }, {}]) {
      const response = await api(`/v1/projects/${project.id}`, { key: tenant.key, method: "PATCH", body });
      expect(expectSuccess(response).data).toEqual(project);
      expect(response.headers.get("etag")).toBe('"1"');
    }
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  // The stored project runs 2026-03-01 .. 2026-09-30: a patch with one date must still keep them in order.
  const reordering: Array<[string, Record<string, unknown>, string]> = [
    ["startDate after the stored endDate", { startDate: "2026-10-01" }, "startDate"],
    ["endDate before the stored startDate", { endDate: "2026-02-28" }, "endDate"],
    ["both dates out of order", { startDate: "2026-05-02", endDate: "2026-05-01" }, "endDate"],
  ];
  for (const [label, body, field] of reordering) {
    it(`refuses ${label}: 400 invalid_field ${field}, nothing written`, async () => {
      const tenant = await createTenant();
      const project = await tenant.insertProject({ startDate: "2026-03-01", endDate: "2026-09-30" });
      await refusedCall(tenant, `/v1/projects/${project.id}`, { method: "PATCH", body }, 400, "invalid_field", { field });
    });
  }

  it("accepts a single date that keeps the order", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject({ startDate: "2026-03-01", endDate: "2026-09-30" });
    const response = await api(`/v1/projects/${project.id}`, { key: tenant.key, method: "PATCH", body: { endDate: "2026-03-01" } });
    expect(expectSuccess(response).data).toMatchObject({ startDate: "2026-03-01", endDate: "2026-03-01" });
  });

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ["an unknown field", { colour: "red" }, "colour", "unknown_field"],
    ["an id in the body", { id: "0198c0a0-0000-7000-8000-000000000000" }, "id", "unknown_field"],
    ["an unknown status", { status: "done" }, "status", "invalid_field"],
    ["a negative budget", { budget: -0.01 }, "budget", "invalid_field"],
    ["a null name", { name: null }, "name", "invalid_field"],
  ];
  for (const [label, body, field, code] of invalid) {
    it(`refuses ${label}: 400 ${code} naming ${field}`, async () => {
      const tenant = await createTenant();
      const project = await tenant.insertProject();
      await refusedCall(tenant, `/v1/projects/${project.id}`, { method: "PATCH", body }, 400, code, { field });
    });
  }
});

describe("If-Match on projects", () => {
  it("a matching version writes and answers the new ETag; a stale one is 412 and writes nothing", async () => {
    const tenant = await createTenant();
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const path = `/v1/projects/${project.id}`;

    const first = await api(path, { key: tenant.key, method: "PATCH", body: { name: "First" }, headers: { "if-match": '"1"' } });
    expect(expectSuccess(first).data.version).toBe(2);
    expect(first.headers.get("etag")).toBe('"2"');

    await refusedCall(
      tenant,
      path,
      { method: "PATCH", body: { name: "Stale" }, headers: { "if-match": '"1"' } },
      412,
      "precondition_failed",
    );
    await refusedCall(tenant, path, { method: "DELETE", headers: { "if-match": '"1"' } }, 412, "precondition_failed");
    await refusedCall(
      tenant,
      path,
      { method: "PATCH", body: { name: "Bad" }, headers: { "if-match": "yesterday" } },
      400,
      "invalid_field",
      {
        field: "If-Match",
      },
    );

    const deleted = await api(path, { key: tenant.key, method: "DELETE", headers: { "if-match": '"2"' } });
    expect(expectSuccess(deleted).data).toMatchObject({ id: project.id, name: "First", version: 2 });
  });
});

describe("DELETE /v1/projects/:id", () => {
  it("removes a project without dependants and emits project.deleted with the record as it was", async () => {
    const tenant = await createTenant();
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/projects/${project.id}`, { key: tenant.key, method: "DELETE" });
    expect(expectSuccess(response).data).toEqual(project);
    const event = await expectOneWrite(tenant.org.id, before, "project.deleted");
    expect(event.data).toEqual(project);
    expect((await snapshot(tenant.org.id)).rows.projects).toBe(0);
    expect((await api(`/v1/projects/${project.id}`, { key: tenant.key })).status).toBe(404);
  });

  it("refuses while milestones or tasks remain: 409 conflict, nothing written", async () => {
    const tenant = await createTenant();
    const withMilestone = await tenant.insertProject();
    await tenant.insertMilestone(withMilestone.id);
    const withTask = await tenant.insertProject();
    await tenant.insertTask({ projectId: withTask.id });
    for (const project of [withMilestone, withTask]) {
      await refusedCall(tenant, `/v1/projects/${project.id}`, { method: "DELETE" }, 409, "conflict");
    }
  });
});

describe("malformed project ids", () => {
  for (const method of ["GET", "PATCH", "DELETE"] as const) {
    it(`${method} /v1/projects/not-a-uuid: 400 invalid_field id`, async () => {
      const tenant = await createTenant();
      const body = method === "PATCH" ? { name: "x" } : undefined;
      await refusedCall(tenant, "/v1/projects/not-a-uuid", { method, body }, 400, "invalid_field", { field: "id" });
    });
  }
});
