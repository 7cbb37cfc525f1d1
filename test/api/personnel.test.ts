import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, expectOneWrite, expectShape, personBody, refusedCall, taskBody } from "../helpers/resources.ts";

// Personnel (docs/api.md "Records", "Scopes"): read with organisation.read, written with
// organisation.manage; email unique in the organisation whatever its case; active defaults to
// true and an inactive person cannot be given tasks.

const personId = async (tenant: Tenant) => (await tenant.insertPerson()).id;

describeRefusals({ method: "GET", path: () => "/v1/personnel", scope: "organisation.read" });
describeRefusals({ method: "POST", path: () => "/v1/personnel", scope: "organisation.manage", body: () => personBody() });
describeRefusals({ method: "GET", path: (id) => `/v1/personnel/${id}`, scope: "organisation.read", record: personId });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/personnel/${id}`,
  scope: "organisation.manage",
  record: personId,
  body: () => ({ role: "Driver" }),
});

describe("POST /v1/personnel", () => {
  it("adds an active person and emits personnel.created", async () => {
    const tenant = await createTenant({ scopes: ["organisation.manage"] });
    const before = await snapshot(tenant.org.id);
    const response = await api("/v1/personnel", { key: tenant.key, body: { name: "Ada Lovelace", email: "ada@example.test" } });
    const person = expectSuccess(response, 201).data;

    expectShape(person, "personnel");
    expect(person).toMatchObject({
      orgId: tenant.org.id,
      name: "Ada Lovelace",
      email: "ada@example.test",
      role: null,
      active: true,
      version: 1,
    });
    expect(response.headers.get("etag")).toBe('"1"');
    expect((await expectOneWrite(tenant.org.id, before, "personnel.created")).data).toEqual(person);
    expect((await api(`/v1/personnel/${person.id}`, { key: tenant.key })).body.data).toEqual(person);
  });

  it("takes role and active=false", async () => {
    const tenant = await createTenant();
    expect(await created(tenant.key, "/v1/personnel", personBody({ role: "Site lead", active: false }))).toMatchObject({
      role: "Site lead",
      active: false,
    });
  });

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ["without name", { name: undefined }, "name", "missing_field"],
    ["without email", { email: undefined }, "email", "missing_field"],
    ["with an email without @", { email: "ada.example.test" }, "email", "invalid_field"],
    ["with active as a string", { active: "yes" }, "active", "invalid_field"],
    ["with an unknown field", { phone: "+44" }, "phone", "unknown_field"],
  ];
  for (const [label, fields, field, code] of invalid) {
    it(`${label}: 400 ${code} naming ${field}, nothing written`, async () => {
      const tenant = await createTenant();
      await refusedCall(tenant, "/v1/personnel", { body: personBody(fields) }, 400, code, { field });
    });
  }
});

describe("email uniqueness", () => {
  it("a second person with the same email in any case: 409 conflict on email, nothing written", async () => {
    const tenant = await createTenant();
    await created(tenant.key, "/v1/personnel", personBody({ email: "Ada@Example.test" }));
    for (const email of ["Ada@Example.test", "ada@example.test", "ADA@EXAMPLE.TEST"]) {
      await refusedCall(tenant, "/v1/personnel", { body: personBody({ email }) }, 409, "conflict", { field: "email" });
    }
  });

  it("changing an email to another person's: 409 conflict on email; one's own in another case is fine", async () => {
    const tenant = await createTenant();
    await tenant.insertPerson({ email: "grace@example.test" });
    const ada = await tenant.insertPerson({ email: "ada@example.test" });
    await refusedCall(tenant, `/v1/personnel/${ada.id}`, { method: "PATCH", body: { email: "GRACE@example.test" } }, 409, "conflict", {
      field: "email",
    });
    const response = await api(`/v1/personnel/${ada.id}`, { key: tenant.key, method: "PATCH", body: { email: "Ada@Example.test" } });
    expect(expectSuccess(response).data).toMatchObject({ email: "Ada@Example.test", version: 2 });
  });

  it("the same email in another organisation is another person", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    await a.insertPerson({ email: "shared@example.test" });
    expect(await created(b.key, "/v1/personnel", personBody({ email: "shared@example.test" }))).toMatchObject({ orgId: b.org.id });
  });
});

describe("PATCH /v1/personnel/:id", () => {
  it("deactivating emits personnel.updated; the person can no longer be assigned", async () => {
    const tenant = await createTenant();
    const person = await created(tenant.key, "/v1/personnel", personBody());
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/personnel/${person.id}`, { key: tenant.key, method: "PATCH", body: { active: false, role: "Former" } });
    expect(expectSuccess(response).data).toEqual({
      ...person,
      active: false,
      role: "Former",
      version: 2,
      updatedAt: response.body.data.updatedAt,
    });
    expect((await expectOneWrite(tenant.org.id, before, "personnel.updated")).changes).toEqual({
      active: { from: true, to: false },
      role: { from: null, to: "Former" },
    });

    await refusedCall(tenant, "/v1/tasks", { body: await taskBody(tenant, { assigneeId: person.id }) }, 400, "invalid_reference", {
      field: "assigneeId",
    });
  });

  it("a patch that changes nothing: 200, no version, no event", async () => {
    const tenant = await createTenant();
    const person = await created(tenant.key, "/v1/personnel", personBody({ role: "Driver" }));
    const before = await snapshot(tenant.org.id);
    const response = await api(`/v1/personnel/${person.id}`, { key: tenant.key, method: "PATCH", body: { role: "Driver", active: true } });
    expect(expectSuccess(response).data).toEqual(person);
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("refuses a stale If-Match (412) and a malformed id (400 id), writing nothing", async () => {
    const tenant = await createTenant();
    const person = await tenant.insertPerson();
    await refusedCall(
      tenant,
      `/v1/personnel/${person.id}`,
      { method: "PATCH", body: { role: "x" }, headers: { "if-match": '"5"' } },
      412,
      "precondition_failed",
    );
    await refusedCall(tenant, "/v1/personnel/nobody", { method: "PATCH", body: { role: "x" } }, 400, "invalid_field", { field: "id" });
    await refusedCall(tenant, "/v1/personnel/nobody", {}, 400, "invalid_field", { field: "id" });
  });

  it("people are not removed: DELETE /v1/personnel/:id is not an endpoint", async () => {
    const tenant = await createTenant();
    const person = await tenant.insertPerson();
    await refusedCall(tenant, `/v1/personnel/${person.id}`, { method: "DELETE" }, 404, "not_found");
  });
});

describe("GET /v1/personnel", () => {
  it("filters by active and says 'person'/'people'", async () => {
    const tenant = await createTenant({ scopes: ["organisation.read"] });
    const active = await tenant.insertPerson();
    const inactive = await tenant.insertPerson({ active: false });
    const list = async (query: string) => expectSuccess(await api(`/v1/personnel${query}`, { key: tenant.key }));

    const all = await list("");
    expect(all).toMatchObject({ count: 2, message: "2 people", nextCursor: null });
    expect(all.data.map((p: { id: string }) => p.id)).toEqual([active.id, inactive.id]);
    all.data.forEach((p: unknown) => expectShape(p, "personnel"));
    expect(await list("?active=true")).toMatchObject({ count: 1, message: "1 person", data: [{ id: active.id }] });
    expect(await list("?active=false")).toMatchObject({ count: 1, data: [{ id: inactive.id }] });
    await refusedCall(tenant, "/v1/personnel?active=yes", {}, 400, "invalid_field", { field: "active" });
  });
});
