/* eslint-disable max-lines -- every case shares the window alignment that keeps it exact. */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { generateApiKey } from "../../domain/crypto/api-keys.ts";
import type { Scope } from "../../domain/scopes.ts";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { expectOneWrite, projectBody, storedEvents } from "../helpers/resources.ts";

// Rate limits (docs/api.md "Limits"): per key, the key's own limit per fixed 60 s window,
// counted exactly under concurrency by the key's RateLimiter Durable Object. Every keyed response
// carries RateLimit-Limit, -Remaining and -Reset; a 429 adds Retry-After, is in the envelope
// (code rate_limited) and changes nothing. A bad key is 401 before any 429.
//
// Nothing here measures time, and nothing runs twice. A test that spends a key's budget first
// waits, if need be, for a window with enough time left for everything it does within the window
// (its time budget: several times what it takes on a loaded 2-core machine), then runs once. A
// failure is a failure; one that came after the window ended under the test says so.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const header = (response: ApiResponse, name: string) => response.headers.get(name);
const limitHeaders = (response: ApiResponse) => ({
  limit: Number(header(response, "ratelimit-limit")),
  remaining: Number(header(response, "ratelimit-remaining")),
  reset: Number(header(response, "ratelimit-reset")),
});

/** The three headers are present and sane: reset is 1..60 s, remaining within 0..limit. */
function expectLimitHeaders(response: ApiResponse, limit: number) {
  for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
    expect(header(response, name), `${name} on a ${response.status}`).toMatch(/^\d+$/);
  }
  const values = limitHeaders(response);
  expect(values.limit).toBe(limit);
  expect(values.remaining).toBeGreaterThanOrEqual(0);
  expect(values.remaining).toBeLessThanOrEqual(limit);
  expect(values.reset).toBeGreaterThanOrEqual(1);
  expect(values.reset).toBeLessThanOrEqual(60);
  return values;
}

function expectRateLimited(response: ApiResponse, limit: number) {
  expectError(response, 429, "rate_limited");
  const values = expectLimitHeaders(response, limit);
  expect(values.remaining).toBe(0);
  expect(header(response, "retry-after"), "429 carries Retry-After").toMatch(/^\d+$/);
  expect(Number(header(response, "retry-after"))).toBe(values.reset);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Time budgets, in seconds, for what a test does within one window. A few sequential calls take
 * well under 2 s here, a burst of 200 concurrent calls a few seconds; each budget is several
 * times that. The larger a budget, the more often a test waits for the next window (at most one
 * wait of under 60 s per test, and tests that follow one usually fit in the window it waited for).
 */
const SEQUENTIAL = 15;
const BURST = 40;
/** A test in one window: its wait for the window (at most its budget and a second) and its budget, with room to spare. */
const WINDOWED_TIMEOUT = 60_000;

let probeKey: Promise<string> | undefined;

/**
 * The current window, from a probe key's RateLimit-Reset: whole seconds, rounded up, counted from
 * when the limiter decided (between sending and receiving), so the window ends after `endsAfter`
 * and by `endsBy`, a second or so later.
 */
async function currentWindow(): Promise<{ endsAfter: number; endsBy: number }> {
  probeKey ??= createTenant({ scopes: ["projects.read"], rateLimit: 1_000_000 }).then((t) => t.key);
  const key = await probeKey;
  const sent = Date.now();
  const { reset } = limitHeaders(await api("/v1", { key }));
  return { endsAfter: sent + (reset - 1) * 1000, endsBy: Date.now() + reset * 1000 };
}

/**
 * Waits, if need be, for a window with at least `seconds` left (windows are fixed 60 s windows of
 * the clock, the same for every key), so at most one wait; answers when that window ends, at the
 * earliest.
 */
async function windowWithAtLeast(seconds: number): Promise<number> {
  let window = await currentWindow();
  if (window.endsAfter - Date.now() < seconds * 1000) {
    await sleep(window.endsBy - Date.now() + 250);
    window = await currentWindow();
  }
  expect(window.endsAfter - Date.now(), `a fresh window has ${seconds} s left`).toBeGreaterThanOrEqual(seconds * 1000);
  return window.endsAfter;
}

/**
 * Runs a test that spends a key's budget within one window, once: it starts with at least
 * `seconds` left. Should it fail after the window ended under it (the machine stalled past the
 * budget, and the key got a second allowance), the failure says so.
 */
async function inOneWindow(seconds: number, test: () => Promise<void>): Promise<void> {
  const ends = await windowWithAtLeast(seconds);
  const started = Date.now();
  try {
    await test();
  } catch (error) {
    if (Date.now() >= ends && error instanceof Error) {
      error.message = `the rate-limit window may have ended under the test, ${((ends - started) / 1000).toFixed(1)} s into it (given ${seconds} s): ${error.message}`;
    }
    throw error;
  }
}

/** `n` sequential calls, all expected to succeed. */
async function spend(key: string, n: number, path = "/v1") {
  for (let i = 0; i < n; i++) expectSuccess(await api(path, { key }));
}

describe("each key's own limit", () => {
  it("defaults to 600 per window; createTenant({ rateLimit }) sets another", async () => {
    const standard = await createTenant();
    expectLimitHeaders(await api("/v1", { key: standard.key }), 600);
    const slow = await createTenant({ rateLimit: 7 });
    expectLimitHeaders(await api("/v1", { key: slow.key }), 7);
  });

  it("the CLI's key create --rate-limit sets it", async () => {
    const tenant = await createTenant();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "cli/bin.js",
        "key",
        "create",
        "--org",
        tenant.org.id,
        "--name",
        "cli-limited",
        "--scopes",
        "projects.read",
        "--rate-limit",
        "3",
        "--json",
      ],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: inject("databaseUrl") }, timeout: 60_000 },
    );
    const created = JSON.parse(stdout) as { key: string; rateLimit: number };
    expect(created.rateLimit).toBe(3);
    await inOneWindow(SEQUENTIAL, async () => {
      const responses = [];
      for (let i = 0; i < 4; i++) responses.push(await api("/v1/projects", { key: created.key }));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      expect(responses.map((r) => limitHeaders(r).remaining)).toEqual([2, 1, 0, 0]);
      expectRateLimited(responses[3]!, 3);
    });
  }, 120_000);
});

describe("headers", () => {
  it(
    "remaining counts down one per call; reset does not grow within the window",
    () =>
      inOneWindow(SEQUENTIAL, async () => {
        const tenant = await createTenant({ rateLimit: 5 });
        const responses = [];
        for (let i = 0; i < 5; i++) responses.push(await api("/v1/projects", { key: tenant.key }));
        expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
        expect(responses.map((r) => expectLimitHeaders(r, 5).remaining)).toEqual([4, 3, 2, 1, 0]);
        const resets = responses.map((r) => limitHeaders(r).reset);
        expect(
          [...resets].sort((x, y) => y - x),
          "reset only counts down within a window",
        ).toEqual(resets);
        expectRateLimited(await api("/v1/projects", { key: tenant.key }), 5);
      }),
    WINDOWED_TIMEOUT,
  );

  it(
    "refusals carry them too: 400, 403, 404, 409, 412, and a 201",
    () =>
      inOneWindow(SEQUENTIAL, async () => {
        const tenant = await createTenant({ rateLimit: 50 });
        const project = await tenant.insertProject();
        await tenant.insertMilestone(project.id);
        const readOnly = await tenant.keyWith(["projects.read"], { rateLimit: 50 });
        const calls: Array<[number, () => Promise<ApiResponse>, string]> = [
          [400, () => api("/v1/tasks?limit=0", { key: tenant.key }), tenant.key],
          [400, () => api("/v1/projects", { key: tenant.key, rawBody: "{" }), tenant.key],
          [403, () => api("/v1/tasks", { key: readOnly.key }), readOnly.key],
          [404, () => api(`/v1/tasks/${randomUUID()}`, { key: tenant.key }), tenant.key],
          [409, () => api(`/v1/projects/${project.id}`, { key: tenant.key, method: "DELETE" }), tenant.key],
          [
            412,
            () =>
              api(`/v1/projects/${project.id}`, { key: tenant.key, method: "PATCH", body: { name: "x" }, headers: { "if-match": '"9"' } }),
            tenant.key,
          ],
          [201, () => api("/v1/projects", { key: tenant.key, body: projectBody() }), tenant.key],
        ];
        for (const [status, call] of calls) {
          const response = await call();
          expect(response.status, response.text.slice(0, 200)).toBe(status);
          expectLimitHeaders(response, 50);
        }
        // Each refusal counted: 6 calls of the main key, 1 of the read-only one.
        expect(limitHeaders(await api("/v1", { key: tenant.key })).remaining).toBe(50 - 7);
        expect(limitHeaders(await api("/v1", { key: readOnly.key })).remaining).toBe(50 - 2);
      }),
    WINDOWED_TIMEOUT,
  );

  it(
    "a 429 is the envelope with Retry-After, and browsers may read the headers (CORS)",
    () =>
      inOneWindow(SEQUENTIAL, async () => {
        const tenant = await createTenant({ rateLimit: 1 });
        await spend(tenant.key, 1);
        const limited = await api("/v1", { key: tenant.key, headers: { origin: "https://app.example" } });
        expectRateLimited(limited, 1);
        expect(limited.body.error.retryAfter).toBe(Number(header(limited, "retry-after")));
        const exposed = (header(limited, "access-control-expose-headers") ?? "").toLowerCase().split(/\s*,\s*/);
        expect(exposed).toEqual(
          expect.arrayContaining(["retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "x-request-id"]),
        );
        expect(header(limited, "x-request-id")).toBe(limited.body.error.requestId);
      }),
    WINDOWED_TIMEOUT,
  );
});

/**
 * What the limiter decided for each of a burst's responses, read from the responses alone. A call
 * it let through carries RateLimit-Remaining, whatever the route then answered; a call it refused
 * is a 429. The database may still fail a call the limiter decided (503: a local database
 * saturated by the burst and by the test files running beside it), which writes nothing.
 */
function decisions(responses: ApiResponse[], successStatus: number) {
  const unexpected = responses
    .filter((r) => ![successStatus, 429, 503].includes(r.status) || (r.status === 503 && r.body?.error?.code !== "unavailable"))
    .map((r) => `${r.status} ${r.text.slice(0, 200)}`);
  expect(unexpected).toEqual([]);
  const allowed = responses.filter((r) => r.status !== 429 && header(r, "ratelimit-remaining") !== null);
  const refused = responses.filter((r) => r.status === 429 || (r.status === 503 && header(r, "ratelimit-remaining") === null));
  return {
    allowed,
    refused,
    succeeded: responses.filter((r) => r.status === successStatus),
    unavailable: responses.filter((r) => r.status === 503).length,
  };
}

/**
 * Runs a burst of `n` concurrent calls at a fresh key whose limit is `limit`, once, in a window
 * with BURST seconds left.
 */
async function burst(
  n: number,
  limit: number,
  scopes: Scope[],
  send: (key: string, i: number) => Promise<ApiResponse>,
  successStatus: number,
) {
  const tenant = await createTenant({ rateLimit: limit, scopes });
  const before = await snapshot(tenant.org.id);
  const windowEnds = await windowWithAtLeast(BURST);
  const started = Date.now();
  const responses = await Promise.all(Array.from({ length: n }, (_, i) => send(tenant.key, i)));
  expect(Date.now(), `the burst (${((Date.now() - started) / 1000).toFixed(1)} s) ran within one window`).toBeLessThan(windowEnds);
  return { tenant, before, responses, ...decisions(responses, successStatus) };
}

describe("exact under concurrency", () => {
  it("200 concurrent creates at a key whose limit is 100: exactly 100 × 201 and 100 × 429, 100 projects, changeVersion +100", async () => {
    const LIMIT = 100;
    const N = 200;
    const { tenant, before, allowed, refused, succeeded, unavailable } = await burst(
      N,
      LIMIT,
      ["projects.manage"],
      (key, i) => api("/v1/projects", { key, body: projectBody({ name: `Burst ${i}` }) }),
      201,
    );
    // The limiter: exactly LIMIT calls through, each seeing its own remaining value, 99 down to 0.
    expect(allowed.length).toBe(LIMIT);
    expect(refused.length).toBe(N - LIMIT);
    expect(allowed.map((r) => expectLimitHeaders(r, LIMIT).remaining).sort((x, y) => x - y)).toEqual(
      Array.from({ length: LIMIT }, (_, i) => i),
    );
    for (const response of refused.filter((r) => r.status === 429)) expectRateLimited(response, LIMIT);
    // The database kept up: all LIMIT succeeded; and whatever it failed wrote nothing.
    expect(unavailable, "calls the database failed").toBe(0);
    expect(succeeded.length).toBe(LIMIT);

    const after = await snapshot(tenant.org.id);
    expect(after.rows.projects).toBe(before.rows.projects! + succeeded.length);
    expect(after.changeVersion).toBe(before.changeVersion + succeeded.length);
    const events = await storedEvents(tenant.org.id, before.changeVersion);
    expect(events.map((e) => e.changeVersion)).toEqual(Array.from({ length: succeeded.length }, (_, i) => before.changeVersion + 1 + i));
    expect(events.map((e) => e.data.id).sort()).toEqual(succeeded.map((r) => r.body.data.id).sort());
  }, 180_000);

  it("200 concurrent reads at a limit of 100: exactly 100 × 200 and 100 × 429", async () => {
    const LIMIT = 100;
    const { allowed, refused, succeeded, unavailable } = await burst(
      2 * LIMIT,
      LIMIT,
      ["projects.read"],
      (key) => api("/v1/projects", { key }),
      200,
    );
    expect(allowed.length).toBe(LIMIT);
    expect(refused.length).toBe(LIMIT);
    expect(unavailable, "calls the database failed").toBe(0);
    expect(succeeded.length).toBe(LIMIT);
  }, 180_000);
});

describe("budgets", () => {
  it(
    "a limited write changes nothing: POST, PATCH and DELETE answer 429 and leave no trace",
    () =>
      inOneWindow(SEQUENTIAL, async () => {
        const tenant = await createTenant({ rateLimit: 2 });
        const task = await tenant.insertTask();
        const before = await snapshot(tenant.org.id);
        const project = expectSuccess(await api("/v1/projects", { key: tenant.key, body: projectBody() }), 201).data;
        await expectOneWrite(tenant.org.id, before, "project.created");
        await spend(tenant.key, 1);

        const afterAllowed = await snapshot(tenant.org.id);
        expectRateLimited(await api("/v1/projects", { key: tenant.key, body: projectBody() }), 2);
        expectRateLimited(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { status: "in_progress" } }), 2);
        expectRateLimited(await api(`/v1/projects/${project.id}`, { key: tenant.key, method: "DELETE" }), 2);
        expectRateLimited(
          await api("/v1/personnel", {
            key: tenant.key,
            body: { name: "x", email: "x@example.test" },
            headers: { "idempotency-key": "limited-1" },
          }),
          2,
        );
        expectNoTrace(afterAllowed, await snapshot(tenant.org.id));
        expect(await query("select 1 from idempotency_keys where key_id = $1", [tenant.keyId])).toEqual([]);
      }),
    WINDOWED_TIMEOUT,
  );

  it(
    "two keys of one organisation have separate budgets",
    () =>
      inOneWindow(SEQUENTIAL, async () => {
        const tenant = await createTenant({ rateLimit: 2 });
        const other = await tenant.keyWith(["projects.read"], { rateLimit: 3 });
        await spend(tenant.key, 2);
        expectRateLimited(await api("/v1", { key: tenant.key }), 2);
        const first = await api("/v1", { key: other.key });
        expectSuccess(first);
        expect(limitHeaders(first)).toMatchObject({ limit: 3, remaining: 2 });
        await spend(other.key, 2);
        expectRateLimited(await api("/v1", { key: other.key }), 3);
        expectRateLimited(await api("/v1", { key: tenant.key }), 2);
      }),
    WINDOWED_TIMEOUT,
  );

  it(
    "rate limit comes before scope: an exhausted key without the scope gets 429, not 403",
    () =>
      inOneWindow(SEQUENTIAL, async () => {
        const tenant = await createTenant({ scopes: ["projects.read"], rateLimit: 1 });
        await spend(tenant.key, 1);
        expectRateLimited(await api("/v1/tasks", { key: tenant.key }), 1);
      }),
    WINDOWED_TIMEOUT,
  );
});

describe("a bad key is 401, never 429", () => {
  const tooMany = 12;

  async function expectAll401(calls: Array<() => Promise<ApiResponse>>, code: string | readonly string[]) {
    const responses = await Promise.all(calls.map((call) => call()));
    for (const response of responses) expectError(response, 401, code);
    return responses;
  }

  it("an unknown key, far past any limit: always 401 invalid_key", async () => {
    const key = generateApiKey();
    const responses = await expectAll401(
      Array.from({ length: 3 * tooMany }, () => () => api("/v1", { key })),
      "invalid_key",
    );
    // An unknown key has no budget to report.
    for (const response of responses) expect(header(response, "ratelimit-limit")).toBeNull();
  });

  it("a malformed key: always 401", async () => {
    await expectAll401(
      Array.from({ length: tooMany }, () => () => api("/v1", { headers: { authorization: "Bearer ops_not-a-key" } })),
      ["unauthorized", "invalid_key"],
    );
  });

  it("a revoked key with a small limit: 401 invalid_key however often it calls", async () => {
    const tenant = await createTenant();
    const revoked = await tenant.revokedKey();
    await query("update api_keys set rate_limit = 2 where id = $1", [revoked.id]);
    await expectAll401(
      Array.from({ length: tooMany }, () => () => api("/v1", { key: revoked.key })),
      "invalid_key",
    );
  });

  it(
    "a key revoked after it spent its budget: 401, not 429",
    () =>
      inOneWindow(SEQUENTIAL, async () => {
        const tenant: Tenant = await createTenant({ rateLimit: 2 });
        await spend(tenant.key, 2);
        expectRateLimited(await api("/v1", { key: tenant.key }), 2);
        await query("update api_keys set revoked_at = now() where id = $1", [tenant.keyId]);
        const before = await snapshot(tenant.org.id);
        expectError(await api("/v1", { key: tenant.key }), 401, "invalid_key");
        expectError(await api("/v1/projects", { key: tenant.key, body: projectBody() }), 401, "invalid_key");
        expectNoTrace(before, await snapshot(tenant.org.id));
      }),
    WINDOWED_TIMEOUT,
  );
});
