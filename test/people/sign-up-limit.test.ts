import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SIGN_UP_WINDOW_SECONDS, SIGN_UPS_PER_ADDRESS } from "../../domain/limits.ts";
import { query } from "../helpers/database.ts";
import { authPost, invite, newEmail, signUp } from "../helpers/people.ts";

// Sign-ups are counted per client address (an IPv6 /64), SIGN_UPS_PER_ADDRESS per fixed window of
// SIGN_UP_WINDOW_SECONDS, whatever their outcome: past it, a sign-up is answered 429 rate_limited
// with Retry-After before a password is hashed or anything is created. The probe of issue 31 made
// 35 people and organisations in a row from one address.

const freshAddress = () => `2001:db8:5b:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::1`;

const signUpFrom = (address: string, fields: Record<string, unknown> = {}) =>
  authPost(
    "/auth/sign-up/email",
    { email: newEmail("flood"), password: "correct horse battery", name: "Flood", ...fields },
    { "cf-connecting-ip": address },
  );

/** Seconds left in the fixed window. */
const secondsLeftInWindow = () => SIGN_UP_WINDOW_SECONDS - (Math.floor(Date.now() / 1000) % SIGN_UP_WINDOW_SECONDS);

/** The counts belong to one window: start where enough of it is left. A wait for alignment, not a negative check. */
async function windowWithRoom(seconds: number) {
  if (secondsLeftInWindow() < seconds) await new Promise((resolve) => setTimeout(resolve, secondsLeftInWindow() * 1000 + 500));
}

const usersWith = async (email: string) => (await query("select id from users where email = $1", [email])).length;
const organisationsNamed = async (name: string) => (await query("select id from organisations where name = $1", [name])).length;

async function expectLimited(response: Response) {
  expect(response.status, await response.clone().text()).toBe(429);
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(SIGN_UP_WINDOW_SECONDS);
  expect(await response.json()).toMatchObject({ success: false, error: { code: "rate_limited", retryAfter } });
  expect(response.headers.getSetCookie()).toEqual([]);
}

describe("sign-ups per client address", () => {
  it(`${SIGN_UPS_PER_ADDRESS} sign-ups from one address each make a person; the next is 429 with Retry-After and creates nothing; another address is unaffected`, async () => {
    await windowWithRoom(60);
    const address = freshAddress();
    const first = await Promise.all(Array.from({ length: SIGN_UPS_PER_ADDRESS }, () => signUpFrom(address)));
    expect(first.map((response) => response.status)).toEqual(Array(SIGN_UPS_PER_ADDRESS).fill(200));

    const email = newEmail("refused");
    const organisationName = `Refused ${randomBytes(4).toString("hex")}`;
    await expectLimited(await signUpFrom(address, { email, organisationName }));
    expect(await usersWith(email)).toBe(0);
    expect(await organisationsNamed(organisationName)).toBe(0);
    // An IPv6 client is counted by its /64: another address in it is the same client.
    await expectLimited(await signUpFrom(address.replace(/::1$/, "::2")));

    expect((await signUpFrom(freshAddress())).status).toBe(200);
  }, 60_000);

  it("every sign-up counts, whatever its outcome, and an invitation's is limited too", async () => {
    await windowWithRoom(60);
    const address = freshAddress();
    const refused = await Promise.all(Array.from({ length: SIGN_UPS_PER_ADDRESS }, () => signUpFrom(address, { password: "short" })));
    expect(refused.map((response) => response.status)).toEqual(Array(SIGN_UPS_PER_ADDRESS).fill(400));
    const owner = await signUp();
    const invited = newEmail("invited");
    const { token } = await invite(owner, invited, "member");
    await expectLimited(await signUpFrom(address, { email: invited, invitation: token }));
    expect(await usersWith(invited)).toBe(0);
  }, 60_000);
});
