import { describe, expect, it } from "vitest";
import type { Scope } from "../../domain/scopes.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { ISO_TIMESTAMP, refusedCall } from "../helpers/resources.ts";

// POST /v1/realtime/tokens (docs/api.md "Realtime"): a short-lived token for the organisation's room,
// carrying the key's read scopes or a requested subset of them, never more.

describeRefusals({ method: "POST", path: () => "/v1/realtime/tokens", scope: null, body: () => ({}) });

/** The claims inside rt_<payload>.<signature> (the signature needs the Worker's secret). */
function claimsOf(token: string): { orgId: string; keyId: string; scopes: string[]; exp: number } {
  const match = /^rt_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  expect(match, `token format: ${token}`).not.toBeNull();
  return JSON.parse(Buffer.from(match![1]!, "base64url").toString("utf8"));
}

async function mint(scopes: Scope[], body: unknown) {
  const tenant = await createTenant({ scopes });
  const before = await snapshot(tenant.org.id);
  const response = await api("/v1/realtime/tokens", { key: tenant.key, body });
  const data = expectSuccess(response, 201).data;
  // Minting a token is not a change of the organisation's data.
  expectNoTrace(before, await snapshot(tenant.org.id));
  return { tenant, data, claims: claimsOf(data.token) };
}

describe("POST /v1/realtime/tokens", () => {
  it("by default carries every read scope of the key, for its organisation, for 5 minutes", async () => {
    const started = Math.floor(Date.now() / 1000);
    const { tenant, data, claims } = await mint(["tasks.manage", "projects.read", "webhooks.read"], {});
    expect(data.scopes.slice().sort()).toEqual(["projects.read", "tasks.read"]);
    expect(data).toMatchObject({ organisation: tenant.org.id, expiresAt: expect.stringMatching(ISO_TIMESTAMP) });
    expect(data.realtime).toEqual({
      namespace: "/v1",
      how: expect.stringContaining(tenant.org.id),
      url: expect.stringContaining(tenant.org.id),
    });
    // The token names the key it was minted from: the room refuses it once that key is revoked.
    expect(claims).toEqual({ orgId: tenant.org.id, keyId: tenant.keyId, scopes: data.scopes, exp: Date.parse(data.expiresAt) / 1000 });
    expect(claims.exp - started).toBeGreaterThanOrEqual(299);
    expect(claims.exp - started).toBeLessThanOrEqual(302);
  });

  it("carries the requested subset and lifetime", async () => {
    const started = Math.floor(Date.now() / 1000);
    const { data, claims } = await mint(["tasks.read", "projects.read", "organisation.read"], { scopes: ["tasks.read"], ttlSeconds: 60 });
    expect(data.scopes).toEqual(["tasks.read"]);
    expect(claims.scopes).toEqual(["tasks.read"]);
    expect(claims.exp - started).toBeGreaterThanOrEqual(59);
    expect(claims.exp - started).toBeLessThanOrEqual(62);
  });

  it("lives at most 15 minutes: 900 s is taken, 901 s is 400 invalid_field ttlSeconds", async () => {
    const started = Math.floor(Date.now() / 1000);
    const { claims } = await mint(["tasks.read"], { ttlSeconds: 900 });
    expect(claims.exp - started).toBeGreaterThanOrEqual(899);
    expect(claims.exp - started).toBeLessThanOrEqual(902);
    const tenant = await createTenant();
    const error = await refusedCall(tenant, "/v1/realtime/tokens", { body: { ttlSeconds: 901 } }, 400, "invalid_field");
    expect(error.error.field).toBe("ttlSeconds");
  });

  it("a scope the key does not hold: 403 insufficient_scope naming it, nothing written", async () => {
    const tenant = await createTenant({ scopes: ["tasks.read"] });
    await refusedCall(tenant, "/v1/realtime/tokens", { body: { scopes: ["tasks.read", "projects.read"] } }, 403, "insufficient_scope", {
      scope: "projects.read",
    });
  });

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ["a manage scope", { scopes: ["tasks.manage"] }, "invalid_field", "scopes"],
    ["an unknown scope", { scopes: ["everything"] }, "invalid_field", "scopes"],
    ["an empty scope list", { scopes: [] }, "invalid_field", "scopes"],
    ["a lifetime under 30 s", { ttlSeconds: 29 }, "invalid_field", "ttlSeconds"],
    ["a lifetime of an hour", { ttlSeconds: 3600 }, "invalid_field", "ttlSeconds"],
    ["an unknown field", { room: "other" }, "unknown_field", "room"],
  ];
  for (const [label, body, code, field] of invalid) {
    it(`${label}: 400 ${code} about ${field}`, async () => {
      const tenant = await createTenant();
      const error = await refusedCall(tenant, "/v1/realtime/tokens", { body }, 400, code);
      expect(error.error.field?.split(".")[0]).toBe(field);
    });
  }
});
