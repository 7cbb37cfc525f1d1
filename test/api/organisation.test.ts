import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, expectShape, projectBody } from "../helpers/resources.ts";

// GET /v1/organisation (docs/api.md "Keys and scopes": organisation.read gates it): the key's own organisation,
// with the changeVersion every write moves.

describeRefusals({ method: "GET", path: () => "/v1/organisation", scope: "organisation.read" });

describe("GET /v1/organisation", () => {
  it("answers the key's organisation with its current changeVersion, and reading changes nothing", async () => {
    const tenant = await createTenant({ scopes: ["organisation.read", "projects.manage"], name: "Acme Logistics" });
    const first = expectSuccess(await api("/v1/organisation", { key: tenant.key })).data;
    expectShape(first, "organisation");
    expect(first).toMatchObject({ id: tenant.org.id, name: "Acme Logistics", changeVersion: 0 });

    await created(tenant.key, "/v1/projects", projectBody());
    await created(tenant.key, "/v1/projects", projectBody());
    const before = await snapshot(tenant.org.id);
    const second = expectSuccess(await api("/v1/organisation", { key: tenant.key })).data;
    expect(second).toMatchObject({ id: tenant.org.id, changeVersion: 2 });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("each organisation's key sees its own organisation only", async () => {
    const [a, b] = [await createTenant({ scopes: ["organisation.read"] }), await createTenant({ scopes: ["organisation.read"] })];
    expect((await api("/v1/organisation", { key: a.key })).body.data.id).toBe(a.org.id);
    expect((await api("/v1/organisation", { key: b.key })).body.data.id).toBe(b.org.id);
  });
});
