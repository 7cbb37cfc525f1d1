import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { expectRecordShape, financialEntryBody, insertFinancialEntry } from "../helpers/project-records.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, refusedCall } from "../helpers/resources.ts";

// GET /v1/projects/:id/financials: budget, costs, adjustments, invoiced, paid and
// remaining = budget - (costs + adjustments), added up in SQL numeric and answered as decimal
// strings with exactly 2 decimals. Amounts of different currencies are never added together.

describeRefusals({
  method: "GET",
  path: (id) => `/v1/projects/${id}/financials`,
  scope: "financials.read",
  record: async (tenant) => (await tenant.insertProject()).id,
});

const financials = async (tenant: Tenant, projectId: string, query = "") =>
  expectSuccess(await api(`/v1/projects/${projectId}/financials${query}`, { key: tenant.key })).data;

/** A project with `budget` and the given entries (kind, amount, currency?), inserted directly. */
async function projectWith(tenant: Tenant, budget: string, entries: Array<[string, string, string?]>) {
  const project = await tenant.insertProject({ budget });
  for (const [kind, amount, currency = "EUR"] of entries)
    await insertFinancialEntry(tenant, { project_id: project.id, kind, amount, currency });
  return project.id;
}

describe("GET /v1/projects/:id/financials", () => {
  it("a project without entries: its budget, zero totals, no currency; reading writes nothing", async () => {
    const tenant = await createTenant();
    const projectId = await projectWith(tenant, "25000", []);
    const before = await snapshot(tenant.org.id);
    const summary = await financials(tenant, projectId);
    expectRecordShape(summary, "projectFinancials");
    expect(summary).toEqual({
      projectId,
      currency: null,
      budget: "25000.00",
      costs: "0.00",
      adjustments: "0.00",
      invoiced: "0.00",
      paid: "0.00",
      remaining: "25000.00",
    });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it('adds exactly: "0.10" + "0.20" is "0.30", ten times "0.10" is "1.00"', async () => {
    const tenant = await createTenant();
    const small = await projectWith(tenant, "1", [
      ["cost", "0.10"],
      ["cost", "0.20"],
    ]);
    expect(await financials(tenant, small)).toMatchObject({ currency: "EUR", budget: "1.00", costs: "0.30", remaining: "0.70" });
    const tenTimes = await projectWith(
      tenant,
      "0",
      Array.from({ length: 10 }, () => ["invoice", "0.10"] as [string, string]),
    );
    expect(await financials(tenant, tenTimes)).toMatchObject({ invoiced: "1.00", costs: "0.00", remaining: "0.00" });
  });

  it("each kind in its own total; adjustments correct costs; remaining goes negative over budget", async () => {
    const tenant = await createTenant();
    const projectId = await projectWith(tenant, "1000.00", [
      ["cost", "600.25"],
      ["cost", "500.00"],
      ["adjustment", "-50.50"],
      ["adjustment", "10.00"],
      ["invoice", "1500.00"],
      ["payment", "999.99"],
    ]);
    expect(await financials(tenant, projectId)).toEqual({
      projectId,
      currency: "EUR",
      budget: "1000.00",
      costs: "1100.25",
      adjustments: "-40.50",
      invoiced: "1500.00",
      paid: "999.99",
      remaining: "-59.75",
    });
  });

  it("sums past the range of one amount stay exact", async () => {
    const tenant = await createTenant();
    const projectId = await projectWith(tenant, "9999999999999.99", [
      ["cost", "9999999999999.99"],
      ["cost", "9999999999999.99"],
      ["cost", "0.01"],
    ]);
    expect(await financials(tenant, projectId)).toMatchObject({ costs: "19999999999999.99", remaining: "-10000000000000.00" });
  });

  it("follows writes made through the API, and counts only this project's entries", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject({ budget: "300" });
    const entry = await created(
      tenant.key,
      "/v1/financial-entries",
      await financialEntryBody(tenant, { projectId: project.id, amount: "100.10" }),
    );
    await created(tenant.key, "/v1/financial-entries", await financialEntryBody(tenant, { amount: "5000.00" }));
    expect(await financials(tenant, project.id)).toMatchObject({ costs: "100.10", remaining: "199.90" });
    expectSuccess(await api(`/v1/financial-entries/${entry.id}`, { key: tenant.key, method: "PATCH", body: { amount: "0.05" } }));
    expect(await financials(tenant, project.id)).toMatchObject({ costs: "0.05", remaining: "299.95" });
  });

  it("entries in several currencies: 409 conflict listing them unless ?currency= picks one", async () => {
    const tenant = await createTenant();
    const projectId = await projectWith(tenant, "1000", [
      ["cost", "100.00", "USD"],
      ["cost", "40.00", "EUR"],
      ["payment", "7.50", "USD"],
    ]);
    await refusedCall(tenant, `/v1/projects/${projectId}/financials`, {}, 409, "conflict", {
      field: "currency",
      currencies: ["EUR", "USD"],
    });
    expect(await financials(tenant, projectId, "?currency=USD")).toMatchObject({
      currency: "USD",
      costs: "100.00",
      paid: "7.50",
      remaining: "900.00",
    });
    expect(await financials(tenant, projectId, "?currency=EUR")).toMatchObject({ currency: "EUR", costs: "40.00", paid: "0.00" });
    expect(await financials(tenant, projectId, "?currency=GBP")).toMatchObject({ currency: "GBP", costs: "0.00", remaining: "1000.00" });
  });

  for (const [params, code, field] of [
    ["?currency=usd", "invalid_field", "currency"],
    ["?currency=", "invalid_field", "currency"],
    ["?kind=cost", "unknown_field", "kind"],
  ] as const) {
    it(`${params}: 400 ${code} naming ${field}`, async () => {
      const tenant = await createTenant();
      await refusedCall(tenant, `/v1/projects/${(await tenant.insertProject()).id}/financials${params}`, {}, 400, code, { field });
    });
  }

  it("needs financials.read: a projects.manage key is refused 403", async () => {
    const tenant = await createTenant();
    const key = (await tenant.keyWith(["projects.manage"])).key;
    const response = await api(`/v1/projects/${(await tenant.insertProject()).id}/financials`, { key });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: "insufficient_scope", scope: "financials.read" });
  });
});
