import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FAILED_SIGN_INS_PER_ACCOUNT, FAILED_SIGN_INS_PER_ADDRESS } from "../../domain/limits.ts";
import { expectError, workerUrl } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { asPerson, authPost, cookieOf, newEmail, sessionTokenOfCookie, signedIn, signUp, type Person } from "../helpers/people.ts";

// Sign-in attempts are counted per account (its lower-cased address) and per client address (an
// IPv6 /64), FAILED_SIGN_INS_PER_ACCOUNT and FAILED_SIGN_INS_PER_ADDRESS failures per fixed 60 s
// window; past either, an attempt is answered 429 rate_limited with Retry-After, and no password
// is checked: the right one is refused too. Sign-out ends the session it is sent with.

/** An address with a /64 of its own (the guard counts an IPv6 address by its /64). */
const freshAddress = () => `2001:db8:5e:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::1`;

const attempt = (email: string, password: string, address: string) =>
  authPost("/auth/sign-in/email", { email, password }, { "cf-connecting-ip": address });

/** Seconds left in the guards' fixed 60 s window. */
const secondsLeftInWindow = () => 60 - (Math.floor(Date.now() / 1000) % 60);

/** The counts belong to one window: start where enough of it is left. A wait for alignment, not a negative check. */
async function windowWithRoom(seconds: number) {
  if (secondsLeftInWindow() < seconds) await new Promise((resolve) => setTimeout(resolve, secondsLeftInWindow() * 1000 + 500));
}

/**
 * `count` failed sign-ins (wrong password), sent at once: they all fit in a second or two of the
 * window. None is refused for the others: the guards check before they count, and with `count`
 * attempts at most `count` - 1 failures are counted before any check. Answers their statuses.
 */
async function failAtOnce(count: number, target: (i: number) => [email: string, address: string]): Promise<Array<number | string>> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const [email, address] = target(i);
      return attempt(email, "wrong-password", address);
    }),
  );
  // Anything but a 401 is kept with its body, so a failure shows what came back.
  return Promise.all(answers.map(async (answer) => (answer.status === 401 ? 401 : `${answer.status} ${await answer.text()}`)));
}

async function expectThrottled(response: Response) {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  const body = (await response.json()) as { success: boolean; error: { code: string; retryAfter: number } };
  expect(body).toMatchObject({ success: false, error: { code: "rate_limited", retryAfter } });
  expect(response.headers.getSetCookie()).toEqual([]);
}

const sessionsOf = async (person: Person) =>
  (await query<{ n: number }>("select count(*)::int as n from sessions where user_id = $1", [person.userId]))[0]!.n;

describe("failed sign-ins per account", () => {
  it(`after ${FAILED_SIGN_INS_PER_ACCOUNT} failures (any case, any address) the account waits, even from another address and with the right password`, async () => {
    const person = await signUp();
    const other = await signUp();
    await windowWithRoom(15);
    const failures = await failAtOnce(FAILED_SIGN_INS_PER_ACCOUNT, (i) => [
      i % 2 === 0 ? person.email : person.email.toUpperCase(),
      freshAddress(),
    ]);
    expect(failures).toEqual(Array(FAILED_SIGN_INS_PER_ACCOUNT).fill(401));
    const sessions = await sessionsOf(person);
    const address = freshAddress();
    await expectThrottled(await attempt(person.email, "wrong-password", address));
    await expectThrottled(await attempt(person.email, person.password, freshAddress()));
    await expectThrottled(await attempt(` ${person.email.toUpperCase()} `, person.password, freshAddress()));
    expect(await sessionsOf(person), "a refused attempt makes no session").toBe(sessions);
    // The address that was refused is not blocked for another account; the blocked one's sessions still work.
    expect((await attempt(other.email, other.password, address)).status).toBe(200);
    expect((await asPerson(person.cookie, "/v1/settings/session")).status).toBe(200);
  }, 90_000);

  it("failures below the limit do not stop the right password; a success does not wipe the count", async () => {
    const person = await signUp();
    await windowWithRoom(15);
    expect(await failAtOnce(FAILED_SIGN_INS_PER_ACCOUNT - 1, () => [person.email, freshAddress()])).toEqual(
      Array(FAILED_SIGN_INS_PER_ACCOUNT - 1).fill(401),
    );
    expect((await attempt(person.email, person.password, freshAddress())).status).toBe(200);
    expect((await attempt(person.email, "wrong-password", freshAddress())).status).toBe(401);
    await expectThrottled(await attempt(person.email, person.password, freshAddress()));
  }, 90_000);

  it("successful sign-ins never count", async () => {
    const person = await signUp();
    const address = freshAddress();
    for (let i = 0; i < FAILED_SIGN_INS_PER_ACCOUNT + 2; i++)
      expect((await attempt(person.email, person.password, address)).status).toBe(200);
  }, 90_000);
});

describe("failed sign-ins per client address", () => {
  it(`after ${FAILED_SIGN_INS_PER_ADDRESS} failures for different accounts, the address waits, the right password too; other addresses do not`, async () => {
    const person = await signUp();
    // Unknown addresses and wrong passwords fail alike, each for an account of its own.
    const accounts: string[] = [];
    for (let i = 0; i < FAILED_SIGN_INS_PER_ADDRESS; i++) accounts.push(i % 2 === 0 ? newEmail("nobody") : (await signUp()).email);
    await windowWithRoom(15);
    const address = freshAddress();
    expect(await failAtOnce(accounts.length, (i) => [accounts[i]!, address])).toEqual(Array(FAILED_SIGN_INS_PER_ADDRESS).fill(401));
    const sessions = await sessionsOf(person);
    await expectThrottled(await attempt(person.email, person.password, address));
    // Same /64, another address in it.
    await expectThrottled(await attempt(person.email, person.password, address.replace(/::1$/, "::beef")));
    expect(await sessionsOf(person)).toBe(sessions);
    // The account itself is not blocked: one failure each is far below its limit.
    expect((await attempt(person.email, person.password, freshAddress())).status).toBe(200);
  }, 120_000);
});

describe("sign-in from another site", () => {
  it("refused (403) without a session, and not counted as a failure", async () => {
    const person = await signUp();
    const sessions = await sessionsOf(person);
    for (const origin of ["https://evil.example", "null"]) {
      const response = await authPost("/auth/sign-in/email", { email: person.email, password: person.password }, { origin });
      expect(response.status).toBe(403);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    expect(await sessionsOf(person)).toBe(sessions);
  });
});

describe("sign-out", () => {
  it("ends the session it is sent with: the cookie is then 401 everywhere; the person's other sessions go on", async () => {
    const person = await signUp();
    const other = await signedIn(person);
    const token = sessionTokenOfCookie(person.cookie);
    const out = await authPost("/auth/sign-out", {}, { cookie: person.cookie });
    expect(out.status).toBe(200);
    expect(await query("select id from sessions where token = $1", [token])).toEqual([]);
    expectError(await asPerson(person.cookie, "/v1/settings/session"), 401, "unauthorized");
    expectError(await asPerson(person.cookie, "/v1/tasks"), 401, "unauthorized");
    expectError(
      await asPerson(person.cookie, "/v1/settings/api-keys", { body: { name: "After sign-out", scopes: ["tasks.read"] } }),
      401,
      "unauthorized",
    );
    expect((await asPerson(other.cookie, "/v1/settings/session")).status).toBe(200);
  });

  it("from another site, or with no Origin: refused, and the session goes on", async () => {
    const person = await signUp();
    for (const headers of [{ origin: "https://evil.example" }, { origin: "null" }]) {
      expect((await authPost("/auth/sign-out", {}, { cookie: person.cookie, ...headers })).status).toBe(403);
    }
    const bare = await fetch(new URL("/auth/sign-out", workerUrl()), {
      method: "POST",
      headers: { cookie: person.cookie, "content-type": "application/json" },
      body: "{}",
    });
    expect(bare.status).toBe(403);
    expect((await asPerson(person.cookie, "/v1/settings/session")).status).toBe(200);
  });
});

describe("the session token", () => {
  it("is in the HttpOnly cookie only: no answer of sign-up, sign-in or the session carries it", async () => {
    const email = newEmail("token");
    const password = "correct horse battery";
    const answers = [
      await authPost("/auth/sign-up/email", { email, password, name: "Token" }),
      await authPost("/auth/sign-in/email", { email, password }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const setCookie = answer.headers.getSetCookie().find((line) => line.startsWith("opsroom.session_token="));
      expect(setCookie).toMatch(/; HttpOnly/i);
      const cookie = cookieOf(answer);
      const token = sessionTokenOfCookie(cookie);
      const text = await answer.text();
      expect(text, "the token itself is nowhere in the answer").not.toContain(token);
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(body).not.toHaveProperty("token");
      expect(body).toMatchObject({ user: { email } });

      const session = await fetch(new URL("/auth/get-session", workerUrl()), { headers: { cookie } });
      const sessionText = await session.text();
      expect(sessionText).not.toContain(token);
      const current = JSON.parse(sessionText) as { session: Record<string, unknown>; user: { email: string } };
      expect(current.session).not.toHaveProperty("token");
      expect(current).toMatchObject({ user: { email } });
      // The cookie alone still signs the person's calls.
      expect((await asPerson(cookie, "/v1/settings/session")).status).toBe(200);
    }
  });
});
