import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { projectBody } from "../helpers/resources.ts";
import { expectCommitted, sendBatch, type Operation } from "./helpers.ts";

// The rate limit counts a batch as its operations (docs/api.md "Batches", "Limits"): a batch of
// n takes n of the key's allowance, and one that does not fit what is left is 429 rate_limited
// as a whole, writing nothing. Limits are per fixed 60 s window of the clock, so each test first
// makes sure the window it runs in has time enough left (as test/protection/rate-limits.test.ts
// does), then runs once.

const remaining = (response: ApiResponse) => Number(response.headers.get("ratelimit-remaining"));
const creates = (n: number): Operation[] =>
  Array.from({ length: n }, (_, i) => ({ method: "POST", path: "/v1/projects", body: projectBody({ name: `Counted ${i}` }) }));

/** Seconds a test needs within one window: several times what a few batches take on a loaded 2-core machine. */
const BUDGET = 20;

/**
 * A fresh key with this limit, once its window has at least BUDGET seconds left: the key's first
 * call reads RateLimit-Reset, and if the window is about to end the test waits for the next one
 * (a wait for the clock, at most one per test, not for something to happen). Answers the tenant
 * and what is left after that first call.
 */
async function keyInFreshWindow(limit: number): Promise<{ tenant: Tenant; left: number }> {
  const tenant = await createTenant({ scopes: ["projects.manage"], rateLimit: limit });
  const probe = await createTenant({ scopes: ["projects.read"], rateLimit: 1_000_000 });
  const reset = Number((await api("/v1", { key: probe.key })).headers.get("ratelimit-reset"));
  if (reset < BUDGET) await new Promise((resolve) => setTimeout(resolve, reset * 1000 + 500));
  const first = await api("/v1", { key: tenant.key });
  expectSuccess(first);
  expect(Number(first.headers.get("ratelimit-reset")), "a window with time enough left").toBeGreaterThanOrEqual(BUDGET);
  expect(remaining(first)).toBe(limit - 1);
  return { tenant, left: limit - 1 };
}

function expectRateLimited(response: ApiResponse, limit: number, { retry = true } = {}) {
  expectError(response, 429, "rate_limited");
  expect(Number(response.headers.get("ratelimit-limit"))).toBe(limit);
  if (retry) expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
}

describe("a batch counts as its operations", () => {
  it(
    "RateLimit-Remaining drops by the number of operations, whether the batch commits or is refused at an operation",
    { timeout: 90_000 },
    async () => {
      const { tenant, left } = await keyInFreshWindow(40);
      const seven = await sendBatch(tenant.key, creates(7));
      expectCommitted(seven, 7);
      expect(remaining(seven)).toBe(left - 7);
      const one = await sendBatch(tenant.key, creates(1));
      expectCommitted(one, 1);
      expect(remaining(one)).toBe(left - 8);
      // Refused at its third operation: every operation was counted, as three refused calls would be.
      const refused = await sendBatch(tenant.key, [
        ...creates(2),
        { method: "PATCH", path: "/v1/projects/not-a-uuid", body: {} },
        ...creates(2),
      ]);
      expectError(refused, 400, "invalid_field", { operation: 2 });
      expect(remaining(refused)).toBe(left - 13);
      expect(remaining(await api("/v1", { key: tenant.key }))).toBe(left - 14);
    },
  );

  it(
    "a batch that does not fit what is left: 429 as a whole, nothing written; the allowance it reports fits exactly",
    { timeout: 90_000 },
    async () => {
      const limit = 10;
      const { tenant, left } = await keyInFreshWindow(limit);
      expectCommitted(await sendBatch(tenant.key, creates(5)), 5);
      const before = await snapshot(tenant.org.id);
      const tooMany = await sendBatch(tenant.key, creates(left - 5 + 1));
      expectRateLimited(tooMany, limit);
      expectNoTrace(before, await snapshot(tenant.org.id));
      // What the 429 says is left is what a batch may still take, and not one operation more.
      const stillLeft = remaining(tooMany);
      expect(stillLeft).toBeGreaterThan(0);
      expect(stillLeft).toBeLessThanOrEqual(left - 5);
      const fits = await sendBatch(tenant.key, creates(stillLeft));
      expectCommitted(fits, stillLeft);
      expect(remaining(fits)).toBe(0);
      expectRateLimited(await sendBatch(tenant.key, creates(1)), limit);
      expectRateLimited(await api("/v1", { key: tenant.key }), limit);
      expect((await snapshot(tenant.org.id)).rows.projects).toBe(5 + stillLeft);
    },
  );

  it("a batch larger than the key's whole limit: 429, nothing written", { timeout: 90_000 }, async () => {
    const { tenant } = await keyInFreshWindow(4);
    const before = await snapshot(tenant.org.id);
    // Waiting would not help: no Retry-After is promised.
    expectRateLimited(await sendBatch(tenant.key, creates(5)), 4, { retry: false });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });
});
