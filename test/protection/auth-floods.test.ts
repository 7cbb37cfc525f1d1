import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../domain/crypto/api-keys.ts";
import { FAILED_KEYS_PER_WINDOW } from "../../domain/limits.ts";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";

// Unauthenticated floods cost little (functions/rate-limit/auth-guard.ts). A key's checksum is
// public, so a random well-formed key costs a lookup. Each client address (CF-Connecting-IP) may
// present 30 refused keys (unknown or revoked) per 60 s window; after that, a key the API does
// not already know is answered 429 with Retry-After before it is looked up. A key the API knows
// keeps working from that address, and other addresses are untouched.
// test/protection/database-failures.test.ts shows the blocked answer needs no database at all.

/** An address of its own, from the IPv6 documentation prefix. */
const freshAddress = () => `2001:db8:f1:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::1`;

const from = (address: string) => ({ "cf-connecting-ip": address });

/** Seconds left in the guard's fixed 60 s window (the same clock as the limiter's). */
const secondsLeftInWindow = () => 60 - (Math.floor(Date.now() / 1000) % 60);

/**
 * Presents `count` refused keys from `address`, in sequence. Waits first for a window with
 * enough time left: the count belongs to one window.
 */
async function presentRefusedKeys(address: string, count: number, key: () => string = generateApiKey): Promise<ApiResponse[]> {
  if (secondsLeftInWindow() < 20) await new Promise((resolve) => setTimeout(resolve, secondsLeftInWindow() * 1000 + 500));
  const answers: ApiResponse[] = [];
  for (let i = 0; i < count; i++) answers.push(await api("/v1", { key: key(), headers: from(address) }));
  return answers;
}

function expectBlocked(response: ApiResponse) {
  const body = expectError(response, 429, "rate_limited");
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(body.error.retryAfter).toBe(retryAfter);
}

describe("refused keys per client address", () => {
  it(`${FAILED_KEYS_PER_WINDOW} random well-formed keys are 401; the next unknown key from that address is 429 with Retry-After`, async () => {
    const address = freshAddress();
    const answers = await presentRefusedKeys(address, FAILED_KEYS_PER_WINDOW);
    for (const answer of answers) expectError(answer, 401, "invalid_key");
    expectBlocked(await api("/v1", { key: generateApiKey(), headers: from(address) }));
    expectBlocked(await api("/v1/tasks", { key: generateApiKey(), headers: from(address) }));
    // Another address is not affected.
    expectError(await api("/v1", { key: generateApiKey(), headers: from(freshAddress()) }), 401, "invalid_key");
  }, 90_000);

  it("valid keys are unaffected: a key already in use keeps working from the blocked address, any key from another", async () => {
    const tenant = await createTenant();
    const address = freshAddress();
    expectSuccess(await api("/v1", { key: tenant.key, headers: from(address) }));
    await presentRefusedKeys(address, FAILED_KEYS_PER_WINDOW);
    expectBlocked(await api("/v1", { key: generateApiKey(), headers: from(address) }));
    for (let i = 0; i < 5; i++) expectSuccess(await api("/v1/tasks", { key: tenant.key, headers: from(address) }));
    const other = await createTenant();
    expectSuccess(await api("/v1", { key: other.key, headers: from(freshAddress()) }));
  }, 90_000);

  it("a revoked key counts as a refused key, whether the limiter knew it or not", async () => {
    const tenant = await createTenant();
    const address = freshAddress();
    const revoked = await tenant.keyWith(["tasks.read"]);
    // Known to its limiter first, then revoked: the statement refuses it, and the limiter forgets it.
    expectSuccess(await api("/v1", { key: revoked.key, headers: from(address) }));
    await query("update api_keys set revoked_at = now() where id = $1", [revoked.id]);
    const answers = await presentRefusedKeys(address, FAILED_KEYS_PER_WINDOW, () => revoked.key);
    for (const answer of answers) expectError(answer, 401, "invalid_key");
    expectBlocked(await api("/v1", { key: generateApiKey(), headers: from(address) }));
  }, 90_000);

  it("a malformed key costs no lookup: it is 401 however many, and does not count", async () => {
    const address = freshAddress();
    for (let i = 0; i < FAILED_KEYS_PER_WINDOW + 5; i++) {
      expectError(await api("/v1", { key: `ops_${"x".repeat(38)}`, headers: from(address) }), 401, ["unauthorized", "invalid_key"]);
    }
    expectError(await api("/v1", { key: generateApiKey(), headers: from(address) }), 401, "invalid_key");
  }, 60_000);
});
