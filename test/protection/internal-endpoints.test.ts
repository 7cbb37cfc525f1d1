/* eslint-disable max-lines -- one subject, the /internal endpoints: each probed without the shared secret, then with it. */
import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { generateApiKey } from "../../domain/crypto/api-keys.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { FAILED_KEYS_PER_WINDOW } from "../../domain/limits.ts";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";

// The Worker's /internal endpoints serve the realtime room only (functions/internal.ts): the
// webhooks with their signing secrets, every event with no scope filter, who a socket's
// credential belongs to, and writes to the delivery log and the webhooks' state. Without the
// shared REALTIME_SECRET each of them is a plain 404 that reveals and changes nothing; with it,
// every body and parameter is parsed first, so a malformed one is a 400, never a 5xx.

interface InternalCall {
  label: string;
  method: "GET" | "POST";
  path: (tenant: Tenant, webhookId: string) => string;
  body?: (tenant: Tenant, webhookId: string) => unknown;
}

const CALLS: InternalCall[] = [
  { label: "where to start", method: "GET", path: (t) => `/internal/rooms/${t.org.id}/start` },
  { label: "the events", method: "GET", path: (t) => `/internal/rooms/${t.org.id}/events?after=0` },
  { label: "the webhooks and their secrets", method: "GET", path: (t) => `/internal/rooms/${t.org.id}/webhooks` },
  {
    label: "a delivery report",
    method: "POST",
    path: (t) => `/internal/rooms/${t.org.id}/deliveries`,
    body: (_t, webhookId) => ({ attempts: [attempt(webhookId)] }),
  },
  {
    label: "disabling a webhook",
    method: "POST",
    path: (t, webhookId) => `/internal/rooms/${t.org.id}/webhooks/${webhookId}/disable`,
    body: () => ({ reason: "forged" }),
  },
  {
    label: "a socket's credential",
    method: "POST",
    path: (t) => `/internal/rooms/${t.org.id}/sockets`,
    body: (t) => ({ apiKey: t.key, clientAddress: "2001:db8::1" }),
  },
];

function attempt(webhookId: string) {
  return {
    id: uuidv7(),
    webhookId,
    eventId: randomUUID(),
    eventType: "task.updated",
    changeVersion: 1,
    attempt: 1,
    outcome: "succeeded",
    responseStatus: 200,
    durationMs: 5,
    error: null,
    responseExcerpt: null,
    nextRetryAt: null,
  };
}

async function tenantWithWebhook(): Promise<{ tenant: Tenant; webhookId: string }> {
  const tenant = await createTenant();
  const created = expectSuccess(await api("/v1/webhooks", { key: tenant.key, body: { url: "http://127.0.0.1:9/internal-probe" } }), 201);
  return { tenant, webhookId: created.data.id };
}

const deliveriesOf = async (webhookId: string) =>
  Number((await query<{ n: string }>("select count(*) as n from webhook_deliveries where webhook_id = $1", [webhookId]))[0]!.n);

const secret = () => inject("realtimeSecret");

function send(call: InternalCall, tenant: Tenant, webhookId: string, authorization?: string): Promise<ApiResponse> {
  const body = call.body?.(tenant, webhookId);
  return api(call.path(tenant, webhookId), {
    method: call.method,
    ...(body === undefined ? {} : { body }),
    headers: authorization === undefined ? {} : { authorization },
  });
}

describe("without the shared secret every internal endpoint is a 404 that reveals and changes nothing", () => {
  const wrongCredentials: Array<[string, (tenant: Tenant) => string | undefined]> = [
    ["no Authorization", () => undefined],
    ["a wrong secret", () => `Bearer ${secret()}x`],
    ["a prefix of the secret", () => `Bearer ${secret().slice(0, -1)}`],
    ["the organisation's own API key", (t) => `Bearer ${t.key}`],
    ["the secret in another scheme", () => `Basic ${secret()}`],
    ["the secret without a scheme", () => secret()],
  ];
  for (const call of CALLS) {
    for (const [label, authorization] of wrongCredentials) {
      it(`${call.method} ${call.label}, ${label}: 404 not_found, no secret in the answer, no trace`, async () => {
        const { tenant, webhookId } = await tenantWithWebhook();
        const before = await snapshot(tenant.org.id);
        const deliveries = await deliveriesOf(webhookId);
        const answer = await send(call, tenant, webhookId, authorization(tenant));
        expectError(answer, 404, "not_found");
        expect(answer.text).not.toContain("whsec_");
        expect(answer.text).not.toContain(webhookId);
        expectNoTrace(before, await snapshot(tenant.org.id));
        expect(await deliveriesOf(webhookId)).toBe(deliveries);
        const webhook = expectSuccess(await api(`/v1/webhooks/${webhookId}`, { key: tenant.key })).data;
        expect(webhook).toMatchObject({ enabled: true, disabledReason: null });
      });
    }
  }
});

describe("with the shared secret", () => {
  it("each answers 200 with what the room asked for, and only the room gets the signing secrets", async () => {
    const { tenant, webhookId } = await tenantWithWebhook();
    // Two events to read back: changeVersion 1 and 2.
    for (const name of ["Alpha", "Beta"]) {
      expectSuccess(
        await api("/v1/projects", { key: tenant.key, body: { name, budget: 10, startDate: "2026-01-01", endDate: "2026-12-31" } }),
        201,
      );
    }
    const answers = new Map<string, ApiResponse>();
    for (const call of CALLS) {
      const answer = await send(call, tenant, webhookId, `Bearer ${secret()}`);
      expect(answer.status, `${call.label}: ${answer.text.slice(0, 300)}`).toBe(200);
      answers.set(call.label, answer);
    }
    expect(answers.get("where to start")!.body).toEqual({ watermark: expect.any(Number) });
    expect(answers.get("the events")!.body).toEqual({
      events: [
        expect.objectContaining({ type: "project.created", changeVersion: 1 }),
        expect.objectContaining({ type: "project.created", changeVersion: 2 }),
      ],
    });
    expect(answers.get("the webhooks and their secrets")!.body.webhooks).toEqual([
      expect.objectContaining({ id: webhookId, secret: expect.stringMatching(/^whsec_/) }),
    ]);
    expect(answers.get("a delivery report")!.body).toEqual({ recorded: 1 });
    expect(answers.get("disabling a webhook")!.body).toEqual({ disabled: true });
    expect(answers.get("a socket's credential")!.body).toEqual({ orgId: tenant.org.id, keyId: tenant.keyId, scopes: tenant.scopes });
    // The reported attempt (a task.updated), beside whatever the room logged of delivering the two projects.
    expect(
      await query("select count(*)::int as n from webhook_deliveries where webhook_id = $1 and event_type = 'task.updated'", [webhookId]),
    ).toEqual([{ n: 1 }]);
    expect(expectSuccess(await api(`/v1/webhooks/${webhookId}`, { key: tenant.key })).data).toMatchObject({
      enabled: false,
      disabledReason: "forged",
    });
  });

  it("the events after a changeVersion, at most limit of them", async () => {
    const tenant = await createTenant();
    for (const name of ["Alpha", "Beta", "Gamma"]) {
      expectSuccess(
        await api("/v1/projects", { key: tenant.key, body: { name, budget: 10, startDate: "2026-01-01", endDate: "2026-12-31" } }),
        201,
      );
    }
    const events = async (query: string) => {
      const answer = await api(`/internal/rooms/${tenant.org.id}/events${query}`, { headers: { authorization: `Bearer ${secret()}` } });
      expect(answer.status, answer.text.slice(0, 300)).toBe(200);
      return (answer.body.events as Array<{ changeVersion: number }>).map((e) => e.changeVersion);
    };
    expect(await events("")).toEqual([1, 2, 3]);
    expect(await events("?after=1")).toEqual([2, 3]);
    expect(await events("?after=0&limit=2")).toEqual([1, 2]);
    expect(await events("?after=2&limit=1000")).toEqual([3]);
    expect(await events("?after=3")).toEqual([]);
  });

  const malformed: Array<
    [string, (t: Tenant, webhookId: string) => { method: "GET" | "POST"; path: string; rawBody?: string }, string, string?]
  > = [
    ["an orgId that is not a UUID", () => ({ method: "GET", path: "/internal/rooms/not-a-uuid/start" }), "invalid_field", "orgId"],
    [
      "after that is not a number",
      (t) => ({ method: "GET", path: `/internal/rooms/${t.org.id}/events?after=abc` }),
      "invalid_field",
      "after",
    ],
    [
      "after beyond a safe integer",
      (t) => ({ method: "GET", path: `/internal/rooms/${t.org.id}/events?after=1e400` }),
      "invalid_field",
      "after",
    ],
    ["after below 0", (t) => ({ method: "GET", path: `/internal/rooms/${t.org.id}/events?after=-1` }), "invalid_field", "after"],
    ["a fractional after", (t) => ({ method: "GET", path: `/internal/rooms/${t.org.id}/events?after=1.5` }), "invalid_field", "after"],
    ["limit 0", (t) => ({ method: "GET", path: `/internal/rooms/${t.org.id}/events?limit=0` }), "invalid_field", "after"],
    ["limit over 1000", (t) => ({ method: "GET", path: `/internal/rooms/${t.org.id}/events?limit=1001` }), "invalid_field", "after"],
    [
      "an unknown query parameter",
      (t) => ({ method: "GET", path: `/internal/rooms/${t.org.id}/events?after=0&scope=all` }),
      "invalid_field",
      "after",
    ],
    [
      "a delivery report that is not JSON",
      (t) => ({ method: "POST", path: `/internal/rooms/${t.org.id}/deliveries`, rawBody: "{not json" }),
      "invalid_json",
    ],
    [
      "a delivery report with a bad webhook id",
      (t) => ({
        method: "POST",
        path: `/internal/rooms/${t.org.id}/deliveries`,
        rawBody: JSON.stringify({ attempts: [{ ...attempt("x"), webhookId: "x" }] }),
      }),
      "invalid_field",
      "attempts.0.webhookId",
    ],
    [
      "a delivery report with a bad timestamp",
      (t, w) => ({
        method: "POST",
        path: `/internal/rooms/${t.org.id}/deliveries`,
        rawBody: JSON.stringify({ attempts: [{ ...attempt(w), nextRetryAt: "2026-02-30T00:00:00Z" }] }),
      }),
      "invalid_field",
      "attempts.0.nextRetryAt",
    ],
    [
      "a webhook id that is not a UUID",
      (t) => ({ method: "POST", path: `/internal/rooms/${t.org.id}/webhooks/nope/disable`, rawBody: '{"reason":"x"}' }),
      "invalid_field",
      "webhookId",
    ],
    [
      "a disable without a reason",
      (t, w) => ({ method: "POST", path: `/internal/rooms/${t.org.id}/webhooks/${w}/disable`, rawBody: "{}" }),
      "invalid_field",
      "reason",
    ],
    [
      "a disable whose body is not JSON",
      (t, w) => ({ method: "POST", path: `/internal/rooms/${t.org.id}/webhooks/${w}/disable`, rawBody: "reason" }),
      "invalid_json",
    ],
    [
      "a socket credential that is neither",
      (t) => ({ method: "POST", path: `/internal/rooms/${t.org.id}/sockets`, rawBody: '{"who":"me"}' }),
      "invalid_field",
      "body",
    ],
    [
      "a socket credential that is not an object",
      (t) => ({ method: "POST", path: `/internal/rooms/${t.org.id}/sockets`, rawBody: "[]" }),
      "invalid_field",
      "body",
    ],
  ];
  for (const [label, request, code, field] of malformed) {
    it(`${label}: 400 ${code}${field ? ` naming ${field}` : ""}, nothing written`, async () => {
      const { tenant, webhookId } = await tenantWithWebhook();
      const before = await snapshot(tenant.org.id);
      const { method, path, rawBody } = request(tenant, webhookId);
      const answer = await api(path, {
        method,
        ...(rawBody === undefined ? {} : { rawBody }),
        headers: { authorization: `Bearer ${secret()}` },
      });
      expectError(answer, 400, code, field === undefined ? {} : { field });
      expectNoTrace(before, await snapshot(tenant.org.id));
      expect(await deliveriesOf(webhookId)).toBe(0);
    });
  }
});

describe("who a socket's credential belongs to (POST /internal/rooms/:orgId/sockets)", () => {
  /** An address of its own, from the IPv6 documentation prefix: refused keys are counted per address. */
  const freshAddress = () => `2001:db8:5c:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::1`;
  const identify = (orgId: string, credential: Record<string, string>) =>
    api(`/internal/rooms/${orgId}/sockets`, { method: "POST", body: credential, headers: { authorization: `Bearer ${secret()}` } });
  const secondsLeftInWindow = () => 60 - (Math.floor(Date.now() / 1000) % 60);

  function expectRetryAfter(answer: ApiResponse) {
    const retryAfter = Number(answer.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(answer.body.error.retryAfter).toBe(retryAfter);
  }

  it("an API key: its organisation, its id and its scopes, .read implied by .manage", async () => {
    const tenant = await createTenant();
    const key = await tenant.keyWith(["tasks.manage", "webhooks.read"]);
    const answer = await identify(tenant.org.id, { apiKey: key.key, clientAddress: freshAddress() });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ orgId: tenant.org.id, keyId: key.id, scopes: ["tasks.read", "tasks.manage", "webhooks.read"] });
  });

  it("a token's key, by id: its organisation, its id and its scopes", async () => {
    const tenant = await createTenant();
    const key = await tenant.keyWith(["projects.read"]);
    const answer = await identify(tenant.org.id, { keyId: key.id, clientAddress: freshAddress() });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ orgId: tenant.org.id, keyId: key.id, scopes: ["projects.read"] });
  });

  it("a malformed, unknown or revoked API key: 401 invalid_key", async () => {
    const tenant = await createTenant();
    const revoked = await tenant.revokedKey();
    for (const apiKey of [
      `${tenant.key.slice(0, -1)}${tenant.key.endsWith("A") ? "B" : "A"}`,
      "ops_short",
      generateApiKey(),
      revoked.key,
    ]) {
      expectError(await identify(tenant.org.id, { apiKey, clientAddress: freshAddress() }), 401, "invalid_key");
    }
  });

  it("a token whose key is revoked or unknown: 401 invalid_key", async () => {
    const tenant = await createTenant();
    const revoked = await tenant.revokedKey();
    for (const keyId of [revoked.id, uuidv7()]) {
      expectError(await identify(tenant.org.id, { keyId, clientAddress: freshAddress() }), 401, "invalid_key");
    }
  });

  it("each socket counts against its key's rate limit, with a key or with a token: 429 with Retry-After", async () => {
    if (secondsLeftInWindow() < 6) await new Promise((resolve) => setTimeout(resolve, secondsLeftInWindow() * 1000 + 500));
    const tenant = await createTenant();
    const viaKey = await tenant.keyWith(["tasks.read"], { rateLimit: 2 });
    const viaToken = await tenant.keyWith(["tasks.read"], { rateLimit: 2 });
    const credentials: Array<Record<string, string>> = [{ apiKey: viaKey.key }, { keyId: viaToken.id }];
    for (const credential of credentials) {
      const address = freshAddress();
      for (let i = 0; i < 2; i++) expect((await identify(tenant.org.id, { ...credential, clientAddress: address })).status).toBe(200);
      const limited = await identify(tenant.org.id, { ...credential, clientAddress: address });
      expectError(limited, 429, "rate_limited");
      expectRetryAfter(limited);
    }
  });

  it("a malformed API key is refused before any lookup: many of them never block the address", async () => {
    if (secondsLeftInWindow() < 12) await new Promise((resolve) => setTimeout(resolve, secondsLeftInWindow() * 1000 + 500));
    const tenant = await createTenant();
    const address = freshAddress();
    const malformed = (i: number) => `${generateApiKey().slice(0, -6)}${String(i).padStart(6, "0")}`;
    for (let i = 0; i < FAILED_KEYS_PER_WINDOW + 2; i++) {
      expectError(await identify(tenant.org.id, { apiKey: malformed(i), clientAddress: address }), 401, "invalid_key");
    }
    // Had they been looked up, they would have counted: this well-formed unknown key would be 429.
    expectError(await identify(tenant.org.id, { apiKey: generateApiKey(), clientAddress: address }), 401, "invalid_key");
  }, 60_000);

  it(`an address that presented ${FAILED_KEYS_PER_WINDOW} refused keys: 429 with Retry-After for a key never seen; a revoked key it used is forgotten`, async () => {
    if (secondsLeftInWindow() < 12) await new Promise((resolve) => setTimeout(resolve, secondsLeftInWindow() * 1000 + 500));
    const tenant = await createTenant();
    const key = await tenant.keyWith(["tasks.read"]);
    const address = freshAddress();
    // The key is known (used from this address) before the address is blocked.
    expect((await identify(tenant.org.id, { apiKey: key.key, clientAddress: address })).status).toBe(200);
    for (let i = 0; i < FAILED_KEYS_PER_WINDOW; i++) {
      expectError(await identify(tenant.org.id, { apiKey: generateApiKey(), clientAddress: address }), 401, "invalid_key");
    }
    const blocked = await identify(tenant.org.id, { apiKey: generateApiKey(), clientAddress: address });
    expectError(blocked, 429, "rate_limited");
    expectRetryAfter(blocked);
    // A key in use still opens sockets from the blocked address.
    expect((await identify(tenant.org.id, { apiKey: key.key, clientAddress: address })).status).toBe(200);
    // Revoked: the statement refuses it (the limiter still knew it), and the limiter forgets it,
    // so from this blocked address it is now a key like any unknown one: 429 before any lookup.
    await query("update api_keys set revoked_at = now() where id = $1", [key.id]);
    expectError(await identify(tenant.org.id, { apiKey: key.key, clientAddress: address }), 401, "invalid_key");
    await expect
      .poll(async () => (await identify(tenant.org.id, { apiKey: key.key, clientAddress: address })).status, { timeout: 5_000 })
      .toBe(429);
  }, 60_000);
});
