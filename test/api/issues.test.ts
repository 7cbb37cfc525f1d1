import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scopeOfEvent } from "../../domain/events.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { expectRecordShape, insertIssue, issueBody } from "../helpers/project-records.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { ISO_TIMESTAMP, created, expectOneWrite, expectRefused, refusedCall } from "../helpers/resources.ts";

// Project issues: projectId and title are required; severity stays null until triaged;
// the reporter is a person of the organisation, the assignee an active one; resolvedAt belongs
// to the service and follows the status. Events issue.* are for issues.read.

const issueId = (tenant: Tenant) => insertIssue(tenant);

describeRefusals({ method: "GET", path: () => "/v1/issues", scope: "issues.read" });
describeRefusals({ method: "POST", path: () => "/v1/issues", scope: "issues.manage", body: (tenant) => issueBody(tenant) });
describeRefusals({ method: "GET", path: (id) => `/v1/issues/${id}`, scope: "issues.read", record: issueId });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/issues/${id}`,
  scope: "issues.manage",
  record: issueId,
  body: () => ({ status: "resolved" }),
});
describeRefusals({ method: "DELETE", path: (id) => `/v1/issues/${id}`, scope: "issues.manage", record: issueId });

const patch = async (tenant: Tenant, id: string, body: Record<string, unknown>) =>
  expectSuccess(await api(`/v1/issues/${id}`, { key: tenant.key, method: "PATCH", body })).data;

describe("POST /v1/issues", () => {
  it("saves exactly what was sent, with the defaults, and emits issue.created", async () => {
    const tenant = await createTenant();
    const body = await issueBody(tenant, { title: "Loading dock door jams" });
    const before = await snapshot(tenant.org.id);
    const response = await api("/v1/issues", { key: tenant.key, body });
    const issue = expectSuccess(response, 201).data;

    expectRecordShape(issue, "issue");
    expect(issue).toMatchObject({
      ...body,
      orgId: tenant.org.id,
      status: "open",
      severity: null,
      reporterId: null,
      assigneeId: null,
      description: null,
      resolvedAt: null,
      version: 1,
    });
    const event = await expectOneWrite(tenant.org.id, before, "issue.created");
    expect(event.scope).toBe("issues.read");
    expect(event.data).toEqual(issue);
    expect(expectSuccess(await api(`/v1/issues/${issue.id}`, { key: tenant.key })).data).toEqual(issue);
  });

  it("takes every optional field; an inactive person may be the reporter", async () => {
    const tenant = await createTenant();
    const [reporter, assignee] = [await tenant.insertPerson({ active: false }), await tenant.insertPerson()];
    const body = await issueBody(tenant, {
      description: "Jams when cold",
      severity: "critical",
      status: "in_progress",
      reporterId: reporter.id,
      assigneeId: assignee.id,
    });
    expect(await created(tenant.key, "/v1/issues", body)).toMatchObject({ ...body, resolvedAt: null });
  });

  it("created as resolved: resolvedAt is stamped; created as closed: none", async () => {
    const tenant = await createTenant();
    const startedAt = Date.now();
    const resolved = await created(tenant.key, "/v1/issues", await issueBody(tenant, { status: "resolved" }));
    expect(resolved.resolvedAt).toMatch(ISO_TIMESTAMP);
    expect(Math.abs(Date.parse(resolved.resolvedAt) - startedAt)).toBeLessThan(60_000);
    expect((await created(tenant.key, "/v1/issues", await issueBody(tenant, { status: "closed" }))).resolvedAt).toBeNull();
  });

  for (const field of ["projectId", "title"]) {
    it(`without ${field}: 400 missing_field naming it, no issue made`, async () => {
      const tenant = await createTenant();
      const { [field]: _omitted, ...body } = await issueBody(tenant);
      await refusedCall(tenant, "/v1/issues", { body }, 400, "missing_field", { field });
      expect((await snapshot(tenant.org.id)).rows.issues).toBe(0);
    });
  }

  const invalid: Array<[string, Record<string, unknown>, string, string?]> = [
    ["an unknown severity", { severity: "urgent" }, "severity"],
    ["an unknown status", { status: "done" }, "status"],
    ["a reporterId that is not a uuid", { reporterId: "ada" }, "reporterId"],
    ["an assigneeId that is a number", { assigneeId: 7 }, "assigneeId"],
    ["a title that is null", { title: null }, "title"],
    ["a 201-character title", { title: "t".repeat(201) }, "title"],
    ["a resolvedAt (set by the service)", { resolvedAt: "2026-01-01T00:00:00.000Z" }, "resolvedAt", "unknown_field"],
    ["an orgId", { orgId: randomUUID() }, "orgId", "unknown_field"],
  ];
  for (const [label, fields, field, code = "invalid_field"] of invalid) {
    it(`with ${label}: 400 ${code} naming ${field}`, async () => {
      const tenant = await createTenant();
      await refusedCall(tenant, "/v1/issues", { body: await issueBody(tenant, fields) }, 400, code, { field });
    });
  }
});

describe("issue references", () => {
  const cases: Array<[string, string, (a: Tenant, b: Tenant) => Promise<Record<string, unknown>>]> = [
    ["a project of another organisation", "projectId", async (_a, b) => ({ projectId: (await b.insertProject()).id })],
    ["a project that does not exist", "projectId", async () => ({ projectId: randomUUID() })],
    ["a reporter of another organisation", "reporterId", async (_a, b) => ({ reporterId: (await b.insertPerson()).id })],
    ["a reporter who does not exist", "reporterId", async () => ({ reporterId: randomUUID() })],
    ["an assignee of another organisation", "assigneeId", async (_a, b) => ({ assigneeId: (await b.insertPerson()).id })],
    ["an inactive assignee", "assigneeId", async (a) => ({ assigneeId: (await a.insertPerson({ active: false })).id })],
  ];

  for (const [label, field, arrange] of cases) {
    it(`create naming ${label}: 400 invalid_reference ${field}, neither organisation changes`, async () => {
      const [a, b] = [await createTenant(), await createTenant()];
      const body = await issueBody(a, await arrange(a, b));
      await expectRefused([a.org.id, b.org.id], () => api("/v1/issues", { key: a.key, body }), 400, "invalid_reference", { field });
    });
  }

  for (const [label, field, arrange] of cases.filter(([, field]) => field !== "projectId")) {
    it(`PATCH naming ${label}: 400 invalid_reference ${field}, neither organisation changes`, async () => {
      const [a, b] = [await createTenant(), await createTenant()];
      const id = await insertIssue(a);
      const body = await arrange(a, b);
      await expectRefused(
        [a.org.id, b.org.id],
        () => api(`/v1/issues/${id}`, { key: a.key, method: "PATCH", body }),
        400,
        "invalid_reference",
        { field },
      );
    });
  }

  it("an issue keeps its project, and resolvedAt cannot be patched", async () => {
    const tenant = await createTenant();
    const id = await insertIssue(tenant);
    const other = await tenant.insertProject();
    await refusedCall(tenant, `/v1/issues/${id}`, { method: "PATCH", body: { projectId: other.id } }, 400, "unknown_field", {
      field: "projectId",
    });
    await refusedCall(tenant, `/v1/issues/${id}`, { method: "PATCH", body: { resolvedAt: null } }, 400, "unknown_field", {
      field: "resolvedAt",
    });
  });
});

describe("PATCH /v1/issues/:id and resolvedAt", () => {
  it("resolving stamps resolvedAt; the event carries both changes", async () => {
    const tenant = await createTenant();
    const issue = await created(tenant.key, "/v1/issues", await issueBody(tenant, { severity: "low" }));
    const before = await snapshot(tenant.org.id);
    const resolved = await patch(tenant, issue.id, { status: "resolved", severity: "high" });
    expectRecordShape(resolved, "issue");
    expect(resolved).toMatchObject({ status: "resolved", severity: "high", version: 2, resolvedAt: expect.stringMatching(ISO_TIMESTAMP) });
    const event = await expectOneWrite(tenant.org.id, before, "issue.updated");
    expect(event.changes).toEqual({
      status: { from: "open", to: "resolved" },
      severity: { from: "low", to: "high" },
      resolvedAt: { from: null, to: resolved.resolvedAt },
    });
    expect(event.data).toEqual(resolved);
  });

  it("closing keeps resolvedAt, resolving again keeps the first stamp, reopening clears it, closing an open issue sets none", async () => {
    const tenant = await createTenant();
    const id = await insertIssue(tenant);
    const resolved = await patch(tenant, id, { status: "resolved" });
    const closed = await patch(tenant, id, { status: "closed" });
    expect(closed.resolvedAt).toBe(resolved.resolvedAt);
    expect((await patch(tenant, id, { status: "resolved" })).resolvedAt).toBe(resolved.resolvedAt);
    expect(await patch(tenant, id, { status: "in_progress" })).toMatchObject({ status: "in_progress", resolvedAt: null });
    expect(await patch(tenant, id, { status: "closed" })).toMatchObject({ status: "closed", resolvedAt: null });
  });

  it("a patch that changes nothing (the same status included) answers 200 without a new version or event", async () => {
    const tenant = await createTenant();
    const issue = await created(tenant.key, "/v1/issues", await issueBody(tenant, { status: "resolved" }));
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/issues/${issue.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { status: "resolved", title: issue.title },
    });
    expect(expectSuccess(response).data).toEqual(issue);
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("If-Match: a stale version is 412 and writes nothing", async () => {
    const tenant = await createTenant();
    const id = await insertIssue(tenant);
    await patch(tenant, id, { title: "v2" });
    await refusedCall(
      tenant,
      `/v1/issues/${id}`,
      { method: "PATCH", body: { status: "resolved" }, headers: { "if-match": '"1"' } },
      412,
      "precondition_failed",
    );
  });
});

describe("DELETE /v1/issues/:id", () => {
  it("removes the issue and emits issue.deleted with the record as it was", async () => {
    const tenant = await createTenant();
    const issue = await created(tenant.key, "/v1/issues", await issueBody(tenant));
    const before = await snapshot(tenant.org.id);
    expect(expectSuccess(await api(`/v1/issues/${issue.id}`, { key: tenant.key, method: "DELETE" })).data).toEqual(issue);
    expect((await expectOneWrite(tenant.org.id, before, "issue.deleted")).data).toEqual(issue);
    expect(await query("select 1 from issues where id = $1", [issue.id])).toEqual([]);
  });

  it("a project with an issue cannot be deleted: 409 conflict counting it, nothing written", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    await insertIssue(tenant, { project_id: project.id });
    await insertIssue(tenant, { project_id: project.id });
    await refusedCall(tenant, `/v1/projects/${project.id}`, { method: "DELETE" }, 409, "conflict", { dependants: { issues: 2 } });
  });
});

describe("GET /v1/issues", () => {
  it("filters by projectId and status, shows only the caller's organisation", async () => {
    const [tenant, other] = [await createTenant(), await createTenant()];
    const project = await tenant.insertProject();
    const ids = [
      await insertIssue(tenant, { project_id: project.id }),
      await insertIssue(tenant, { status: "in_progress" }),
      await insertIssue(tenant, { project_id: project.id, status: "resolved", resolved_at: new Date() }),
    ];
    await insertIssue(other);
    const list = async (params: string) =>
      expectSuccess(await api(`/v1/issues?${params}`, { key: tenant.key })).data.map((i: { id: string }) => i.id);
    expect(await list("")).toEqual(ids);
    expect(await list(`projectId=${project.id}`)).toEqual([ids[0], ids[2]]);
    expect(await list("status=open,in_progress")).toEqual([ids[0], ids[1]]);
    expect(await list("limit=1&status=resolved")).toEqual([ids[2]]);
  });

  it("?status=done: 400 invalid_field naming status", async () => {
    const tenant = await createTenant();
    await refusedCall(tenant, "/v1/issues?status=done", {}, 400, "invalid_field", { field: "status" });
  });
});

describe("issue events", () => {
  it("are seen with issues.read, not with a tasks-only or risks key", async () => {
    const tenant = await createTenant();
    const issue = await created(tenant.key, "/v1/issues", await issueBody(tenant));
    await patch(tenant, issue.id, { status: "resolved" });
    const typesSeenWith = async (scopes: Parameters<Tenant["keyWith"]>[0]) =>
      expectSuccess(await api("/v1/events", { key: (await tenant.keyWith(scopes)).key })).data.map((e: { type: string }) => e.type);
    expect(await typesSeenWith(["issues.read"])).toEqual(["issue.created", "issue.updated"]);
    expect(await typesSeenWith(["tasks.read"])).toEqual([]);
    expect(await typesSeenWith(["risks.manage", "financials.manage", "projects.manage"])).toEqual([]);
    // The realtime room tags sockets by the same map.
    expect(scopeOfEvent("issue.updated")).toBe("issues.read");
  });
});
