import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FAILED_CLIENT_AUTHENTICATIONS_PER_ADDRESS } from "../../domain/oauth.ts";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { signUp } from "../helpers/people.ts";
import { clientForm, oauthTrace, registerApp, tokenRequest, tokensFor } from "./helpers.ts";

// The OAuth endpoints' limits (docs/apps.md "Limits"): failed client authentications per client
// address (an IPv6 one by its /64) at the token and revocation endpoints, past which the address is
// answered 429 before its request is read; and an application's calls to /v1, counted per
// installation (all its tokens together), each installation on its own.

/** An address of its own, from the IPv6 documentation prefix: a /64 no other test uses. */
const freshPrefix = () => `2001:db8:fa:${randomBytes(2).toString("hex")}`;

/** Seconds left in the fixed 60 s window every guard and limiter counts in. */
const secondsLeftInWindow = () => 60 - (Math.floor(Date.now() / 1000) % 60);

/** Waits, if need be, for a window with at least `seconds` left: the counts below belong to one window. */
async function windowWith(seconds: number) {
  if (secondsLeftInWindow() < seconds) await new Promise((resolve) => setTimeout(resolve, secondsLeftInWindow() * 1000 + 500));
}

function expectTooMany(response: { status: number; body: any; headers: Headers }) {
  expect(response.status, JSON.stringify(response.body)).toBe(429);
  expect(response.body).toEqual({ error: "too_many_requests", error_description: expect.stringMatching(/client authentications/) });
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(response.headers.get("cache-control")).toBe("no-store");
}

// Every test counts in one fixed window with 30 s left, waiting up to 30 s for it. The tests share
// nothing (each signs up its own people, registers its own application, and calls from an address
// of its own), so they run at once and wait for the same window: one wait for the file, not one each.
describe.concurrent("failed client authentications per client address", () => {
  it(`${FAILED_CLIENT_AUTHENTICATIONS_PER_ADDRESS} are 401; then 429 before anything is read, even with the right secret, across the /64 and at revocation`, async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const { refresh_token } = await tokensFor(app, owner);
    const prefix = freshPrefix();
    const before = await oauthTrace(app.id);
    await windowWith(30);
    const wrong = { grant_type: "refresh_token", refresh_token, client_id: app.clientId, client_secret: `opsroom_cs_${"x".repeat(43)}` };
    for (let i = 0; i < FAILED_CLIENT_AUTHENTICATIONS_PER_ADDRESS; i++) {
      const refused = await tokenRequest(wrong, { address: `${prefix}::${i + 1}` });
      expect(refused.status, JSON.stringify(refused.body)).toBe(401);
      expect(refused.body.error).toBe("invalid_client");
    }
    // The right secret, from another address of the same /64: 429, and the refresh token is not spent.
    expectTooMany(await tokenRequest({ grant_type: "refresh_token", refresh_token, ...clientForm(app) }, { address: `${prefix}::99` }));
    expectTooMany(await tokenRequest({ token: refresh_token, ...clientForm(app) }, { address: `${prefix}::1`, path: "/oauth/revoke" }));
    // Not even the body is read: a request that is no form at all is answered the same.
    expectTooMany(await tokenRequest({}, { address: `${prefix}::2`, basic: ["not-a-client", "x"] }));
    expect(await oauthTrace(app.id)).toEqual(before);
    // Another address is not affected: the same request from it rotates the refresh token.
    const elsewhere = await tokenRequest(
      { grant_type: "refresh_token", refresh_token, ...clientForm(app) },
      { address: `${freshPrefix()}::1` },
    );
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
  }, 90_000);

  it("a client that authenticates is not counted, whatever else its requests get wrong", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const address = `${freshPrefix()}::1`;
    await windowWith(30);
    for (let i = 0; i < FAILED_CLIENT_AUTHENTICATIONS_PER_ADDRESS + 5; i++) {
      const refused = await tokenRequest(
        { grant_type: "refresh_token", refresh_token: "opsroom_rt_nope", ...clientForm(app) },
        { address },
      );
      expect(refused.body.error).toBe("invalid_grant");
    }
  }, 90_000);
});

describe.concurrent("an application's rate limit on /v1", () => {
  const limitHeaders = (response: ApiResponse) => ({
    limit: Number(response.headers.get("ratelimit-limit")),
    remaining: Number(response.headers.get("ratelimit-remaining")),
  });

  it("is its installation's, all its tokens together; another installation of the same application is not affected", async () => {
    const owner = await signUp();
    const elsewhere = await signUp();
    const app = await registerApp(owner);
    const [first, second, other] = [await tokensFor(app, owner), await tokensFor(app, owner), await tokensFor(app, elsewhere)];
    const limit = 5;
    // Set before the tokens' first call: an isolate reads a token's installation and its limit once a minute.
    await query(`update installations set rate_limit = $1 where application_id = $2 and org_id = $3`, [limit, app.id, owner.orgId]);
    await windowWith(30);
    const calls: ApiResponse[] = [];
    for (let i = 0; i < limit; i++) calls.push(await api("/v1/tasks", { key: (i % 2 ? first : second).access_token }));
    for (const call of calls) expectSuccess(call);
    expect(calls.map((call) => limitHeaders(call))).toEqual(Array.from({ length: limit }, (_, i) => ({ limit, remaining: limit - 1 - i })));
    for (const token of [first.access_token, second.access_token]) {
      const limited = await api("/v1/tasks", { key: token });
      expectError(limited, 429, "rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // The same application installed in another organisation counts on its own, at its own limit.
    const free = await api("/v1/tasks", { key: other.access_token });
    expectSuccess(free);
    expect(limitHeaders(free)).toEqual({ limit: 600, remaining: 599 });
  }, 90_000);
});
