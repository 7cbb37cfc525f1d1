import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";

// Input an operation does not use is refused, never silently dropped: a query parameter on an
// operation that takes none (as lists refuse one they do not know), and an Idempotency-Key on a
// POST that replays nothing (a client would otherwise believe its retry safe). Operations come
// from GET /v1 and the OpenAPI document, so one added later is covered without an edit here.

const tenant = await createTenant();
const operations: { method: string; path: string }[] = (await api("/v1", { key: tenant.key })).body.operations;
const openapi = (await api("/v1/openapi.json")).body;
const docOf = (op: { method: string; path: string }) => openapi.paths[op.path.replace(/:(\w+)/g, "{$1}")][op.method.toLowerCase()];
const takesQuery = (op: { method: string; path: string }) => (docOf(op).parameters ?? []).some((p: { in: string }) => p.in === "query");
/** An operation that replays an Idempotency-Key declares the 422 of idempotency_mismatch. */
const replays = (op: { method: string; path: string }) => "422" in docOf(op).responses;

/** A path with every parameter filled by an id nobody has: the refusal must come before any lookup. */
const filled = (path: string) =>
  path.replace(/:(\w+)/g, (_, name: string) => (name === "externalId" ? "ext-1" : "0190a5b2-0000-7000-8000-00000000abcd"));

describe("query parameters an operation does not take", () => {
  it("covers operations without query parameters", () => {
    expect(operations.filter((op) => !takesQuery(op)).length).toBeGreaterThan(20);
  });

  for (const op of operations.filter((o) => !takesQuery(o))) {
    it(`${op.method} ${op.path}?bogus=1: 400 unknown_field bogus, nothing changes`, async () => {
      const before = await snapshot(tenant.org.id);
      const answer = await api(`${filled(op.path)}?bogus=1`, {
        key: tenant.key,
        method: op.method as never,
        ...(op.method === "GET" || op.method === "DELETE" ? {} : { body: {} }),
      });
      expectError(answer, 400, "unknown_field", { field: "bogus" });
      expectNoTrace(before, await snapshot(tenant.org.id));
    });
  }

  it("a list still refuses a parameter it does not know, and takes the ones it does", async () => {
    expectError(await api("/v1/tasks?bogus=1", { key: tenant.key }), 400, "unknown_field", { field: "bogus" });
    expectSuccess(await api("/v1/tasks?limit=1", { key: tenant.key }));
  });

  it("an unknown key is still 401 first", async () => {
    expectError(await api("/v1/organisation?bogus=1", { key: `ops_${"0".repeat(43)}` }), 401, "invalid_key");
  });
});

describe("Idempotency-Key on a POST that replays nothing", () => {
  const posts = operations.filter((op) => op.method === "POST" && !op.path.startsWith("/v1/settings") && !replays(op));

  it("covers the realtime token and the webhook actions", () => {
    expect(posts.map((op) => op.path)).toEqual(expect.arrayContaining(["/v1/realtime/tokens", "/v1/webhooks/:id/test"]));
  });

  for (const op of posts) {
    it(`${op.path}: 400 invalid_field Idempotency-Key, nothing changes`, async () => {
      const before = await snapshot(tenant.org.id);
      const answer = await api(filled(op.path), { key: tenant.key, method: "POST", body: {}, headers: { "Idempotency-Key": "retry-1" } });
      expectError(answer, 400, "invalid_field", { field: "Idempotency-Key" });
      expectNoTrace(before, await snapshot(tenant.org.id));
    });
  }

  it("a realtime token without the header is still minted", async () => {
    expectSuccess(await api("/v1/realtime/tokens", { key: tenant.key, body: {} }), 201);
  });
});
