import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scopeOfEvent } from "../../domain/events.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { expectRecordShape, financialEntryBody, insertFinancialEntry } from "../helpers/project-records.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, expectOneWrite, expectRefused, refusedCall } from "../helpers/resources.ts";

// Financial entries: projectId, kind, amount, currency and date are required. Money is
// exact: the amount travels as a decimal string with at most 2 decimals, is stored as numeric
// without rounding, and is answered with exactly 2 decimals. Only an adjustment may be negative;
// nothing is zero. Events financialEntry.* are for financials.read.

const entryId = (tenant: Tenant) => insertFinancialEntry(tenant);
const path = (id: string) => `/v1/financial-entries/${id}`;

describeRefusals({ method: "GET", path: () => "/v1/financial-entries", scope: "financials.read" });
describeRefusals({
  method: "POST",
  path: () => "/v1/financial-entries",
  scope: "financials.manage",
  body: (tenant) => financialEntryBody(tenant),
});
describeRefusals({ method: "GET", path: (id) => path(id!), scope: "financials.read", record: entryId });
describeRefusals({
  method: "PATCH",
  path: (id) => path(id!),
  scope: "financials.manage",
  record: entryId,
  body: () => ({ amount: "10.00" }),
});
describeRefusals({ method: "DELETE", path: (id) => path(id!), scope: "financials.manage", record: entryId });

const storedAmount = async (id: string) =>
  (await query<{ amount: string }>("select amount::text from financial_entries where id = $1", [id]))[0]?.amount;

describe("POST /v1/financial-entries", () => {
  it("saves exactly what was sent and emits financialEntry.created", async () => {
    const tenant = await createTenant();
    const body = await financialEntryBody(tenant, {
      kind: "invoice",
      amount: "1234.50",
      currency: "EUR",
      date: "2026-03-31",
      reference: "INV-42",
    });
    const before = await snapshot(tenant.org.id);
    const response = await api("/v1/financial-entries", { key: tenant.key, body });
    const entry = expectSuccess(response, 201).data;

    expectRecordShape(entry, "financialEntry");
    expect(entry).toMatchObject({ ...body, orgId: tenant.org.id, description: null, version: 1 });
    const event = await expectOneWrite(tenant.org.id, before, "financialEntry.created");
    expect(event.scope).toBe("financials.read");
    expect(event.data).toEqual(entry);
    expect(expectSuccess(await api(path(entry.id), { key: tenant.key })).data).toEqual(entry);
  });

  const exact: Array<[string, string, string?]> = [
    ["1234.5", "1234.50"],
    ["7", "7.00"],
    ["0.10", "0.10"],
    ["0.01", "0.01"],
    ["9999999999999.99", "9999999999999.99"],
    ["-0.05", "-0.05", "adjustment"],
    ["-9999999999999.99", "-9999999999999.99", "adjustment"],
  ];
  for (const [sent, answered, kind = "cost"] of exact) {
    it(`a ${kind} of "${sent}" is stored exactly and answered as "${answered}"`, async () => {
      const tenant = await createTenant();
      const entry = await created(tenant.key, "/v1/financial-entries", await financialEntryBody(tenant, { kind, amount: sent }));
      expect(entry.amount).toBe(answered);
      expect(Number(await storedAmount(entry.id))).toBe(Number(sent));
      expect(await storedAmount(entry.id)).toBe(sent);
    });
  }

  for (const field of ["projectId", "kind", "amount", "currency", "date"]) {
    it(`without ${field}: 400 missing_field naming it, no entry made`, async () => {
      const tenant = await createTenant();
      const { [field]: _omitted, ...body } = await financialEntryBody(tenant);
      await refusedCall(tenant, "/v1/financial-entries", { body }, 400, "missing_field", { field });
      expect((await snapshot(tenant.org.id)).rows.financial_entries).toBe(0);
    });
  }

  const invalid: Array<[string, Record<string, unknown>, string, string?]> = [
    ["an amount sent as a JSON number", { amount: 1234.5 }, "amount"],
    ["an integer amount sent as a JSON number", { amount: 100 }, "amount"],
    ["an amount with 3 decimals", { amount: "1.005" }, "amount"],
    ["an amount with a comma", { amount: "1,50" }, "amount"],
    ["an amount in exponent notation", { amount: "1e3" }, "amount"],
    ["an amount with a leading zero", { amount: "01.50" }, "amount"],
    ["an amount with a plus sign", { amount: "+1.50" }, "amount"],
    ["an amount with spaces", { amount: " 1.50" }, "amount"],
    ["an amount of 14 digits", { amount: "10000000000000" }, "amount"],
    ["an empty amount", { amount: "" }, "amount"],
    ["an amount of 0", { amount: "0.00" }, "amount"],
    ["an amount of NaN", { amount: "NaN" }, "amount"],
    ["a negative cost", { amount: "-5.00" }, "amount"],
    ["a negative payment", { kind: "payment", amount: "-5.00" }, "amount"],
    ["an unknown kind", { kind: "refund" }, "kind"],
    ["a lower-case currency", { currency: "eur" }, "currency"],
    ["a 4-letter currency", { currency: "EURO" }, "currency"],
    ["a currency with a digit", { currency: "E1R" }, "currency"],
    ["an impossible date", { date: "2026-02-30" }, "date"],
    ["an empty reference", { reference: "" }, "reference"],
    ["a 201-character reference", { reference: "r".repeat(201) }, "reference"],
    ["an unknown field", { vat: "19.00" }, "vat", "unknown_field"],
  ];
  for (const [label, fields, field, code = "invalid_field"] of invalid) {
    it(`with ${label}: 400 ${code} naming ${field}`, async () => {
      const tenant = await createTenant();
      await refusedCall(tenant, "/v1/financial-entries", { body: await financialEntryBody(tenant, fields) }, 400, code, { field });
    });
  }

  for (const [label, arrange] of [
    ["a project of another organisation", async (b: Tenant) => (await b.insertProject()).id],
    ["a project that does not exist", async () => randomUUID()],
  ] as const) {
    it(`naming ${label}: 400 invalid_reference projectId, neither organisation changes`, async () => {
      const [a, b] = [await createTenant(), await createTenant()];
      const body = await financialEntryBody(a, { projectId: await arrange(b) });
      await expectRefused([a.org.id, b.org.id], () => api("/v1/financial-entries", { key: a.key, body }), 400, "invalid_reference", {
        field: "projectId",
      });
    });
  }
});

describe("PATCH /v1/financial-entries/:id", () => {
  it("corrects the amount; the event carries it from and to as decimal strings", async () => {
    const tenant = await createTenant();
    const entry = await created(tenant.key, "/v1/financial-entries", await financialEntryBody(tenant, { amount: "1234.50" }));
    const before = await snapshot(tenant.org.id);
    const changed = expectSuccess(
      await api(path(entry.id), { key: tenant.key, method: "PATCH", body: { amount: "99.9", reference: "PO-7" } }),
    ).data;
    expect(changed).toEqual({ ...entry, amount: "99.90", reference: "PO-7", version: 2, updatedAt: changed.updatedAt });
    const event = await expectOneWrite(tenant.org.id, before, "financialEntry.updated");
    expect(event.changes).toEqual({ amount: { from: "1234.50", to: "99.90" }, reference: { from: null, to: "PO-7" } });
  });

  it("the same amount written differently (1234.5 for 1234.50) changes nothing", async () => {
    const tenant = await createTenant();
    const entry = await created(tenant.key, "/v1/financial-entries", await financialEntryBody(tenant, { amount: "1234.50" }));
    const before = await snapshot(tenant.org.id);
    expect(expectSuccess(await api(path(entry.id), { key: tenant.key, method: "PATCH", body: { amount: "1234.5" } })).data).toEqual(entry);
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("only an adjustment may be negative, whichever half the patch changes: 400 invalid_field amount", async () => {
    const tenant = await createTenant();
    const cost = await insertFinancialEntry(tenant, { kind: "cost", amount: "10.00" });
    const adjustment = await insertFinancialEntry(tenant, { kind: "adjustment", amount: "-10.00" });
    await refusedCall(tenant, path(cost), { method: "PATCH", body: { amount: "-10.00" } }, 400, "invalid_field", { field: "amount" });
    await refusedCall(tenant, path(adjustment), { method: "PATCH", body: { kind: "cost" } }, 400, "invalid_field", { field: "amount" });
    await refusedCall(tenant, path(adjustment), { method: "PATCH", body: { kind: "payment", amount: "-1.00" } }, 400, "invalid_field", {
      field: "amount",
    });
    // Both halves together may move.
    const fixed = expectSuccess(
      await api(path(adjustment), { key: tenant.key, method: "PATCH", body: { kind: "cost", amount: "10.00" } }),
    ).data;
    expect(fixed).toMatchObject({ kind: "cost", amount: "10.00" });
  });

  it("an entry keeps its project; If-Match guards stale writes", async () => {
    const tenant = await createTenant();
    const id = await insertFinancialEntry(tenant);
    await refusedCall(tenant, path(id), { method: "PATCH", body: { projectId: (await tenant.insertProject()).id } }, 400, "unknown_field", {
      field: "projectId",
    });
    await refusedCall(
      tenant,
      path(id),
      { method: "PATCH", body: { amount: "1.00" }, headers: { "if-match": '"2"' } },
      412,
      "precondition_failed",
    );
  });
});

describe("DELETE /v1/financial-entries/:id", () => {
  it("removes the entry and emits financialEntry.deleted with the record as it was", async () => {
    const tenant = await createTenant();
    const entry = await created(tenant.key, "/v1/financial-entries", await financialEntryBody(tenant));
    const before = await snapshot(tenant.org.id);
    expect(expectSuccess(await api(path(entry.id), { key: tenant.key, method: "DELETE" })).data).toEqual(entry);
    expect((await expectOneWrite(tenant.org.id, before, "financialEntry.deleted")).data).toEqual(entry);
    await refusedCall(tenant, path(entry.id), { method: "DELETE" }, 404, "not_found");
  });

  it("a project with financial entries cannot be deleted: 409 conflict counting them, nothing written", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    await insertFinancialEntry(tenant, { project_id: project.id });
    await refusedCall(tenant, `/v1/projects/${project.id}`, { method: "DELETE" }, 409, "conflict", { dependants: { financialEntries: 1 } });
  });
});

describe("GET /v1/financial-entries", () => {
  it("filters by projectId and kind (comma list), shows only the caller's organisation", async () => {
    const [tenant, other] = [await createTenant(), await createTenant()];
    const project = await tenant.insertProject();
    const ids = [
      await insertFinancialEntry(tenant, { project_id: project.id, kind: "cost" }),
      await insertFinancialEntry(tenant, { kind: "invoice" }),
      await insertFinancialEntry(tenant, { project_id: project.id, kind: "payment" }),
    ];
    await insertFinancialEntry(other);
    const list = async (params: string) => expectSuccess(await api(`/v1/financial-entries?${params}`, { key: tenant.key }));
    const page = await list("");
    expect(page.data.map((e: { id: string }) => e.id)).toEqual(ids);
    expect(page.message).toBe("3 financial entries");
    page.data.forEach((entry: unknown) => expectRecordShape(entry, "financialEntry"));
    expect((await list(`projectId=${project.id}`)).data.map((e: { id: string }) => e.id)).toEqual([ids[0], ids[2]]);
    expect((await list("kind=invoice,payment")).data.map((e: { id: string }) => e.id)).toEqual([ids[1], ids[2]]);
  });

  it("?kind=refund: 400 invalid_field naming kind", async () => {
    const tenant = await createTenant();
    await refusedCall(tenant, "/v1/financial-entries?kind=refund", {}, 400, "invalid_field", { field: "kind" });
  });
});

describe("financial entry events", () => {
  it("are seen with financials.read, not with a tasks-only or projects key", async () => {
    const tenant = await createTenant();
    const entry = await created(tenant.key, "/v1/financial-entries", await financialEntryBody(tenant));
    expectSuccess(await api(path(entry.id), { key: tenant.key, method: "DELETE" }));
    const typesSeenWith = async (scopes: Parameters<Tenant["keyWith"]>[0]) =>
      expectSuccess(await api("/v1/events", { key: (await tenant.keyWith(scopes)).key })).data.map((e: { type: string }) => e.type);
    expect(await typesSeenWith(["financials.read"])).toEqual(["financialEntry.created", "financialEntry.deleted"]);
    expect(await typesSeenWith(["tasks.read"])).toEqual([]);
    expect(await typesSeenWith(["projects.manage", "risks.manage", "issues.manage"])).toEqual([]);
    // The realtime room tags sockets by the same map.
    expect(scopeOfEvent("financialEntry.deleted")).toBe("financials.read");
  });
});
