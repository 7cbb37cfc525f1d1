import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startSqlEndpoint, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { query } from "../helpers/database.ts";
import { asPerson, cookieOf, invite, membershipsOf, newEmail, signUp, type Person } from "../helpers/people.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";

// SIGNUP=false: self-service sign-up is off, and only an invitation lets a new person in. A Worker
// of this file's own (one for the file) on the harness's database, so the owners and invitations
// made through the harness's Worker (sign-up open) are there for it too.

let sqlEndpoint: SqlEndpoint;
let closed: TestWorker;

beforeAll(async () => {
  const database = new URL(inject("databaseUrl"));
  sqlEndpoint = await startSqlEndpoint({ target: { host: database.hostname, port: Number(database.port || 5432) } });
  closed = await startTestWorker({
    DATABASE_URL: inject("databaseUrl"),
    LOCAL_SQL_ENDPOINT: sqlEndpoint.address,
    AUTH_SECRET: randomBytes(32).toString("hex"),
    SIGNUP: "false",
  });
}, 120_000);

afterAll(async () => {
  await closed?.dispose();
  await sqlEndpoint?.close();
}, 60_000);

/** A request to the closed Worker, as a page of its own origin. */
function toClosed(path: string, init: { method?: string; body?: unknown; cookie?: string } = {}) {
  return fetch(new URL(path, closed.url), {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      "content-type": "application/json",
      origin: closed.url,
      "cf-connecting-ip": `2001:db8:c1:${randomBytes(2).toString("hex")}::1`,
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    redirect: "manual",
  });
}

const signUpAtClosed = (body: Record<string, unknown>) =>
  toClosed("/auth/sign-up/email", { body: { password: `pw-${randomBytes(8).toString("hex")}`, name: "Newcomer", ...body } });
const usersWith = (email: string) => query("select id from users where email = $1", [email.toLowerCase()]);
const organisationsNamed = (name: string) => query("select id from organisations where name = $1", [name]);

async function expectRefused(response: Response, email: string) {
  expect(response.status).toBe(403);
  expect(((await response.json()) as { code: string }).code).toBe("SIGN_UP_CLOSED");
  expect(response.headers.getSetCookie()).toEqual([]);
  expect(await usersWith(email), "a refused sign-up creates no user").toEqual([]);
}

describe("sign-up closed (SIGNUP=false)", () => {
  let owner: Person;
  beforeAll(async () => {
    owner = await signUp();
  });

  it("a plain sign-up is refused: no user, no organisation", async () => {
    const email = newEmail("closed");
    const organisationName = `Closed ${email}`;
    await expectRefused(await signUpAtClosed({ email, organisationName }), email);
    await expectRefused(await signUpAtClosed({ email: email.toUpperCase() }), email);
    expect(await organisationsNamed(organisationName)).toEqual([]);
  });

  it("sign-up with a valid invitation joins the inviter's organisation with the invited role, and no other", async () => {
    const email = newEmail("invited");
    const { token } = await invite(owner, email, "admin");
    const shown = await toClosed(`/auth/invitations/${token}`);
    expect(shown.status).toBe(200);
    expect(((await shown.json()) as { data: unknown }).data).toMatchObject({ email, role: "admin" });

    const response = await signUpAtClosed({ email, invitation: token, organisationName: "Ignored" });
    expect(response.status, await response.clone().text()).toBe(200);
    const [user] = await usersWith(email);
    expect(await membershipsOf(user!.id as string)).toEqual([{ org_id: owner.orgId, role: "admin" }]);
    // The closed Worker's own session works there.
    const me = await toClosed("/v1/settings/session", { cookie: cookieOf(response) });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: unknown }).data).toMatchObject({ organisation: { id: owner.orgId }, role: "admin" });
    // Used: the owner sees it gone.
    expect((await asPerson(owner.cookie, "/v1/settings/invitations")).body.data).toEqual([]);
  });

  it("an invitation does not open sign-up for another address, nor once revoked, used or unknown", async () => {
    const email = newEmail("invitee");
    const { token } = await invite(owner, email, "member");
    const stranger = newEmail("stranger");
    await expectRefused(await signUpAtClosed({ email: stranger, invitation: token }), stranger);

    const revoked = await invite(owner, newEmail("revoked"), "member");
    expect((await asPerson(owner.cookie, `/v1/settings/invitations/${revoked.id}`, { method: "DELETE" })).status).toBe(200);
    await expectRefused(
      await signUpAtClosed({ email: revoked.response.body.data.email, invitation: revoked.token }),
      revoked.response.body.data.email,
    );

    expect((await signUpAtClosed({ email, invitation: token })).status).toBe(200);
    const late = newEmail("late");
    await expectRefused(await signUpAtClosed({ email: late, invitation: token }), late);
    await expectRefused(await signUpAtClosed({ email: late, invitation: "not-a-token" }), late);
    await expectRefused(await signUpAtClosed({ email: late, invitation: "" }), late);
  });

  it("people with an account still sign in, and accept invitations", async () => {
    const person = await signUp();
    const signedIn = await toClosed("/auth/sign-in/email", { body: { email: person.email, password: person.password } });
    expect(signedIn.status).toBe(200);
    const cookie = cookieOf(signedIn);
    const { token } = await invite(owner, person.email, "member");
    const accepted = await toClosed("/auth/invitations/accept", { body: { token }, cookie });
    expect(accepted.status).toBe(200);
    expect(await membershipsOf(person.userId)).toEqual([
      { org_id: person.orgId, role: "owner" },
      { org_id: owner.orgId, role: "member" },
    ]);
  });
});
