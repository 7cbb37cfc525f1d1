import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PERSON_RATE_LIMIT, WINDOW_SECONDS } from "../../domain/limits.ts";
import { expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { asPerson, authPost, invite, memberOf, signedIn, signUp, type Person } from "../helpers/people.ts";

// A signed-in person's calls are rate limited as a key's are (docs/people.md): PERSON_RATE_LIMIT
// requests per fixed 60 s window, counted per person and organisation (all their sessions
// together), with the same RateLimit-* headers; past it, 429 with Retry-After, and nothing is
// written. A batch counts each of its operations. Other people, and the same person in another
// organisation, have budgets of their own. Before issue 31, sessions had no limit at all.

const secondsLeftInWindow = () => WINDOW_SECONDS - (Math.floor(Date.now() / 1000) % WINDOW_SECONDS);

/** The counts belong to one window: start where enough of it is left. A wait for alignment, not a negative check. */
async function windowWithRoom(seconds: number) {
  if (secondsLeftInWindow() < seconds) await new Promise((resolve) => setTimeout(resolve, secondsLeftInWindow() * 1000 + 500));
}

const limitHeaders = (response: ApiResponse) => ({
  limit: Number(response.headers.get("ratelimit-limit")),
  remaining: Number(response.headers.get("ratelimit-remaining")),
  reset: Number(response.headers.get("ratelimit-reset")),
});

/**
 * A batch of `size` operations that counts `size` requests and writes nothing: deletes of labels
 * that do not exist (its first is refused 404). The batch's cost is counted before it runs.
 */
const spendingBatch = (person: Person, size: number) =>
  asPerson(person.cookie, "/v1/batch", {
    body: { operations: Array.from({ length: size }, () => ({ method: "DELETE", path: `/v1/labels/${randomUUID()}` })) },
  });

/** Spends `count` requests of the person's window, in batches of at most 100 (a batch's most). */
async function spend(person: Person, count: number) {
  for (let left = count; left > 0; left -= 100) expectError(await spendingBatch(person, Math.min(100, left)), 404, "not_found");
}

function expectLimited(response: ApiResponse) {
  expectError(response, 429, "rate_limited");
  const values = limitHeaders(response);
  expect(values).toMatchObject({ limit: PERSON_RATE_LIMIT, remaining: 0 });
  expect(Number(response.headers.get("retry-after"))).toBe(values.reset);
}

describe("a signed-in person's rate limit", () => {
  it(`every answer carries RateLimit-*: ${PERSON_RATE_LIMIT} a minute, counted across the person's sessions, the settings area's calls included`, async () => {
    const owner = await signUp();
    const other = await signedIn(owner);
    await windowWithRoom(15);
    const first = await asPerson(owner.cookie, "/v1/settings/session");
    expectSuccess(first);
    const counted = limitHeaders(first);
    expect(counted.limit).toBe(PERSON_RATE_LIMIT);
    expect(counted.reset).toBeGreaterThanOrEqual(1);
    expect(counted.reset).toBeLessThanOrEqual(WINDOW_SECONDS);
    const second = await asPerson(other.cookie, "/v1/tasks");
    expectSuccess(second);
    expect(limitHeaders(second).remaining).toBe(counted.remaining - 1);
  });

  it("past the limit: 429 with Retry-After on every session of the person, nothing written; their other organisation and other people are unaffected", async () => {
    const owner = await signUp();
    const colleague = await memberOf(owner, "admin");
    // The owner also belongs to another organisation, where a second session of theirs acts.
    const elsewhere = await signUp();
    const { token } = await invite(elsewhere, owner.email, "member");
    const away = await signedIn(owner);
    expect((await authPost("/auth/invitations/accept", { token }, { cookie: away.cookie })).status).toBe(200);
    const second = await signedIn(owner);

    await windowWithRoom(30);
    await spend(owner, limitHeaders(await asPerson(owner.cookie, "/v1/settings/session")).remaining);
    const before = await snapshot(owner.orgId);
    expectLimited(await asPerson(owner.cookie, "/v1/labels", { body: { name: "Over", colour: "#336699" } }));
    expectLimited(await asPerson(second.cookie, "/v1/tasks"));
    expectNoTrace(before, await snapshot(owner.orgId));

    const inOther = expectSuccess(await asPerson(away.cookie, "/v1/settings/session"));
    expect(inOther.data.organisation.id).toBe(elsewhere.orgId);
    expect(limitHeaders(await asPerson(away.cookie, "/v1/tasks")).remaining).toBeGreaterThan(PERSON_RATE_LIMIT - 10);
    const theirs = await asPerson(colleague.cookie, "/v1/tasks");
    expectSuccess(theirs);
    expect(limitHeaders(theirs).remaining).toBeGreaterThan(PERSON_RATE_LIMIT - 10);
  }, 60_000);

  it("a batch larger than what is left is 429 whole: nothing written, only the call itself counted (as for a key)", async () => {
    const owner = await signUp();
    await windowWithRoom(30);
    await spend(owner, limitHeaders(await asPerson(owner.cookie, "/v1/settings/session")).remaining - 50);
    const before = await snapshot(owner.orgId);
    const refused = await asPerson(owner.cookie, "/v1/batch", {
      body: {
        operations: Array.from({ length: 60 }, (_, i) => ({
          method: "POST",
          path: "/v1/labels",
          body: { name: `L${i}`, colour: "#336699" },
        })),
      },
    });
    expectError(refused, 429, "rate_limited");
    expectNoTrace(before, await snapshot(owner.orgId));
    expect(limitHeaders(await asPerson(owner.cookie, "/v1/tasks")).remaining).toBe(48);
  }, 60_000);

  it("a session that has ended is 401: the limit does not change what it answers", async () => {
    const owner = await signUp();
    expect((await authPost("/auth/sign-out", {}, { cookie: owner.cookie })).status).toBe(200);
    expectError(await asPerson(owner.cookie, "/v1/tasks"), 401, "unauthorized");
  });
});
