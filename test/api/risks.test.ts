import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scopeOfEvent } from "../../domain/events.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { expectRecordShape, insertRisk, riskBody } from "../helpers/project-records.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, expectOneWrite, expectRefused, refusedCall } from "../helpers/resources.ts";

// Risks: projectId and title are required and never invented; probability and impact
// stay null until assessed; the owner is an active person of the caller's organisation; a risk
// keeps its project. Writes move changeVersion by one and emit risk.* events for risks.read.

const riskId = (tenant: Tenant) => insertRisk(tenant);

describeRefusals({ method: "GET", path: () => "/v1/risks", scope: "risks.read" });
describeRefusals({ method: "POST", path: () => "/v1/risks", scope: "risks.manage", body: (tenant) => riskBody(tenant) });
describeRefusals({ method: "GET", path: (id) => `/v1/risks/${id}`, scope: "risks.read", record: riskId });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/risks/${id}`,
  scope: "risks.manage",
  record: riskId,
  body: () => ({ status: "mitigated" }),
});
describeRefusals({ method: "DELETE", path: (id) => `/v1/risks/${id}`, scope: "risks.manage", record: riskId });

const riskCount = async (orgId: string) => (await snapshot(orgId)).rows.risks;

describe("POST /v1/risks", () => {
  it("saves exactly what was sent, with the defaults, and emits risk.created", async () => {
    const tenant = await createTenant();
    const body = await riskBody(tenant, { title: "Van unavailable on moving day" });
    const before = await snapshot(tenant.org.id);
    const response = await api("/v1/risks", { key: tenant.key, body });
    const risk = expectSuccess(response, 201).data;

    expectRecordShape(risk, "risk");
    expect(risk).toMatchObject({
      ...body,
      orgId: tenant.org.id,
      status: "open",
      probability: null,
      impact: null,
      ownerId: null,
      description: null,
      mitigation: null,
      version: 1,
    });
    expect(response.headers.get("etag")).toBe('"1"');
    const event = await expectOneWrite(tenant.org.id, before, "risk.created");
    expect(event.scope).toBe("risks.read");
    expect(event.data).toEqual(risk);
    expect(expectSuccess(await api(`/v1/risks/${risk.id}`, { key: tenant.key })).data).toEqual(risk);
  });

  it("takes every optional field", async () => {
    const tenant = await createTenant();
    const owner = await tenant.insertPerson();
    const body = await riskBody(tenant, {
      description: "Only one van company serves the area",
      probability: "high",
      impact: "medium",
      status: "mitigated",
      ownerId: owner.id,
      mitigation: "Second company on standby",
    });
    expect(await created(tenant.key, "/v1/risks", body)).toMatchObject(body);
  });

  for (const field of ["projectId", "title"]) {
    it(`without ${field}: 400 missing_field naming it, no risk made`, async () => {
      const tenant = await createTenant();
      const { [field]: _omitted, ...body } = await riskBody(tenant);
      await refusedCall(tenant, "/v1/risks", { body }, 400, "missing_field", { field });
      expect(await riskCount(tenant.org.id)).toBe(0);
    });

    it(`with ${field}: null: 400 naming it`, async () => {
      const tenant = await createTenant();
      await refusedCall(tenant, "/v1/risks", { body: await riskBody(tenant, { [field]: null }) }, 400, ["missing_field", "invalid_field"], {
        field,
      });
    });
  }

  const invalid: Array<[string, Record<string, unknown>, string, string?]> = [
    ["an unknown probability", { probability: "certain" }, "probability"],
    ["an unknown impact", { impact: "critical" }, "impact"],
    ["an unknown status", { status: "done" }, "status"],
    ["a projectId that is not a uuid", { projectId: "project-1" }, "projectId"],
    ["an ownerId that is a number", { ownerId: 42 }, "ownerId"],
    ["an empty title", { title: "  " }, "title"],
    ["a 201-character title", { title: "t".repeat(201) }, "title"],
    ["a mitigation with a NUL", { mitigation: "a\u0000b" }, "mitigation"],
    ["an unknown field", { severity: "high" }, "severity", "unknown_field"],
    ["an orgId", { orgId: randomUUID() }, "orgId", "unknown_field"],
  ];
  for (const [label, fields, field, code = "invalid_field"] of invalid) {
    it(`with ${label}: 400 ${code} naming ${field}`, async () => {
      const tenant = await createTenant();
      await refusedCall(tenant, "/v1/risks", { body: await riskBody(tenant, fields) }, 400, code, { field });
    });
  }
});

describe("risk references", () => {
  const cases: Array<[string, string, (a: Tenant, b: Tenant) => Promise<Record<string, unknown>>]> = [
    ["a project of another organisation", "projectId", async (_a, b) => ({ projectId: (await b.insertProject()).id })],
    ["a project that does not exist", "projectId", async () => ({ projectId: randomUUID() })],
    ["an owner of another organisation", "ownerId", async (_a, b) => ({ ownerId: (await b.insertPerson()).id })],
    ["an owner who does not exist", "ownerId", async () => ({ ownerId: randomUUID() })],
    ["an inactive owner", "ownerId", async (a) => ({ ownerId: (await a.insertPerson({ active: false })).id })],
  ];

  for (const [label, field, arrange] of cases) {
    it(`create naming ${label}: 400 invalid_reference ${field}, neither organisation changes`, async () => {
      const [a, b] = [await createTenant(), await createTenant()];
      const body = await riskBody(a, await arrange(a, b));
      await expectRefused([a.org.id, b.org.id], () => api("/v1/risks", { key: a.key, body }), 400, "invalid_reference", { field });
    });
  }

  for (const [label, field, arrange] of cases.filter(([, field]) => field === "ownerId")) {
    it(`PATCH naming ${label}: 400 invalid_reference ${field}, neither organisation changes`, async () => {
      const [a, b] = [await createTenant(), await createTenant()];
      const id = await insertRisk(a);
      const body = await arrange(a, b);
      await expectRefused(
        [a.org.id, b.org.id],
        () => api(`/v1/risks/${id}`, { key: a.key, method: "PATCH", body }),
        400,
        "invalid_reference",
        { field },
      );
    });
  }

  it("a risk keeps its project: projectId is not a changeable field", async () => {
    const tenant = await createTenant();
    const id = await insertRisk(tenant);
    const other = await tenant.insertProject();
    await refusedCall(tenant, `/v1/risks/${id}`, { method: "PATCH", body: { projectId: other.id } }, 400, "unknown_field", {
      field: "projectId",
    });
  });
});

describe("PATCH /v1/risks/:id", () => {
  it("changes several fields at once; the event lists exactly those with from/to", async () => {
    const tenant = await createTenant();
    const risk = await created(tenant.key, "/v1/risks", await riskBody(tenant, { probability: "low" }));
    const owner = await tenant.insertPerson();
    const before = await snapshot(tenant.org.id);
    const body = { probability: "high", impact: "high", status: "mitigated", ownerId: owner.id, mitigation: "Book two vans" };
    const response = await api(`/v1/risks/${risk.id}`, { key: tenant.key, method: "PATCH", body });
    const changed = expectSuccess(response).data;

    expectRecordShape(changed, "risk");
    expect(changed).toEqual({ ...risk, ...body, version: 2, updatedAt: changed.updatedAt });
    expect(response.headers.get("etag")).toBe('"2"');
    const event = await expectOneWrite(tenant.org.id, before, "risk.updated");
    expect(event.changes).toEqual({
      probability: { from: "low", to: "high" },
      impact: { from: null, to: "high" },
      status: { from: "open", to: "mitigated" },
      ownerId: { from: null, to: owner.id },
      mitigation: { from: null, to: "Book two vans" },
    });
    expect(event.data).toEqual(changed);
  });

  it("any status move is allowed, including reopening a closed risk; null clears the assessment", async () => {
    const tenant = await createTenant();
    const id = await insertRisk(tenant, { status: "closed", probability: "high", owner_id: (await tenant.insertPerson()).id });
    const response = await api(`/v1/risks/${id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { status: "open", probability: null, ownerId: null },
    });
    expect(expectSuccess(response).data).toMatchObject({ status: "open", probability: null, ownerId: null, version: 2 });
  });

  it("a patch that changes nothing answers 200 without a new version or event", async () => {
    const tenant = await createTenant();
    const risk = await created(tenant.key, "/v1/risks", await riskBody(tenant, { impact: "low" }));
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/risks/${risk.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { impact: "low", status: "open", ownerId: null },
    });
    expect(expectSuccess(response).data).toEqual(risk);
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("If-Match: the current version writes, a stale one is 412 and writes nothing", async () => {
    const tenant = await createTenant();
    const path = `/v1/risks/${await insertRisk(tenant)}`;
    expect(
      (await api(path, { key: tenant.key, method: "PATCH", body: { title: "v2" }, headers: { "if-match": '"1"' } })).headers.get("etag"),
    ).toBe('"2"');
    await refusedCall(tenant, path, { method: "PATCH", body: { title: "v3" }, headers: { "if-match": '"1"' } }, 412, "precondition_failed");
    await refusedCall(tenant, path, { method: "DELETE", headers: { "if-match": '"1"' } }, 412, "precondition_failed");
  });
});

describe("DELETE /v1/risks/:id", () => {
  it("removes the risk and emits risk.deleted with the record as it was", async () => {
    const tenant = await createTenant();
    const risk = await created(tenant.key, "/v1/risks", await riskBody(tenant));
    const before = await snapshot(tenant.org.id);
    expect(expectSuccess(await api(`/v1/risks/${risk.id}`, { key: tenant.key, method: "DELETE" })).data).toEqual(risk);
    expect((await expectOneWrite(tenant.org.id, before, "risk.deleted")).data).toEqual(risk);
    expect(await query("select 1 from risks where id = $1", [risk.id])).toEqual([]);
    await refusedCall(tenant, `/v1/risks/${risk.id}`, { method: "DELETE" }, 404, "not_found");
  });

  it("a project with a risk cannot be deleted: 409 conflict counting it, nothing written", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    await insertRisk(tenant, { project_id: project.id });
    await refusedCall(tenant, `/v1/projects/${project.id}`, { method: "DELETE" }, 409, "conflict", { dependants: { risks: 1 } });
  });
});

describe("GET /v1/risks", () => {
  it("filters by projectId and status (comma list), pages in creation order, shows only the caller's organisation", async () => {
    const [tenant, other] = [await createTenant(), await createTenant()];
    const project = await tenant.insertProject();
    const ids = [
      await insertRisk(tenant, { project_id: project.id, status: "open" }),
      await insertRisk(tenant, { project_id: project.id, status: "closed" }),
      await insertRisk(tenant, { status: "mitigated" }),
      await insertRisk(tenant, { project_id: project.id, status: "mitigated" }),
    ];
    await insertRisk(other);
    const list = async (params: string) => expectSuccess(await api(`/v1/risks?${params}`, { key: tenant.key }));
    const idsOf = (page: { data: Array<{ id: string }> }) => page.data.map((r) => r.id);

    expect(idsOf(await list(""))).toEqual(ids);
    expect(idsOf(await list(`projectId=${project.id}`))).toEqual([ids[0], ids[1], ids[3]]);
    expect(idsOf(await list("status=open,mitigated"))).toEqual([ids[0], ids[2], ids[3]]);
    expect(idsOf(await list(`projectId=${project.id}&status=mitigated`))).toEqual([ids[3]]);
    const first = await list("limit=3");
    expect(first).toMatchObject({ count: 3, message: "3 risks" });
    const second = await list(`limit=3&cursor=${first.nextCursor}`);
    expect([...idsOf(first), ...idsOf(second)]).toEqual(ids);
    expect(second.nextCursor).toBeNull();
    (await list("")).data.forEach((risk: unknown) => expectRecordShape(risk, "risk"));
  });

  for (const [params, code, field] of [
    ["status=done", "invalid_field", "status"],
    ["projectId=abc", "invalid_field", "projectId"],
    ["owner=x", "unknown_field", "owner"],
  ] as const) {
    it(`?${params}: 400 ${code} naming ${field}`, async () => {
      const tenant = await createTenant();
      await refusedCall(tenant, `/v1/risks?${params}`, {}, 400, code, { field });
    });
  }
});

describe("risk events", () => {
  it("are seen with risks.read (GET /v1/events), not with a tasks-only or issues/financials key", async () => {
    const tenant = await createTenant();
    const risk = await created(tenant.key, "/v1/risks", await riskBody(tenant));
    expectSuccess(await api(`/v1/risks/${risk.id}`, { key: tenant.key, method: "PATCH", body: { status: "closed" } }));
    expectSuccess(await api(`/v1/risks/${risk.id}`, { key: tenant.key, method: "DELETE" }));
    const typesSeenWith = async (scopes: Parameters<Tenant["keyWith"]>[0]) => {
      const key = (await tenant.keyWith(scopes)).key;
      return expectSuccess(await api("/v1/events", { key })).data.map((e: { type: string }) => e.type);
    };
    expect(await typesSeenWith(["risks.read"])).toEqual(["risk.created", "risk.updated", "risk.deleted"]);
    expect(await typesSeenWith(["risks.manage"])).toEqual(["risk.created", "risk.updated", "risk.deleted"]);
    expect(await typesSeenWith(["tasks.read", "projects.read", "issues.read", "financials.read"])).toEqual([]);
    // The realtime room tags sockets by the same map.
    expect(scopeOfEvent("risk.created")).toBe("risks.read");
  });
});
