import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, workerUrl } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import {
  asPerson,
  authPost,
  invite,
  memberOf,
  membershipsOf,
  newEmail,
  peopleTrace,
  signedIn,
  signUp,
  type Person,
} from "../helpers/people.ts";

// Invitations (docs/people.md): accepted by signing up with the link, or by a person who already
// has an account signing in and accepting; refused when the link is for another address, revoked,
// used, expired or unknown; one open invitation per address; only an owner invites an owner.

const accept = (person: Person, token: unknown, headers: Record<string, string> = {}) =>
  api("/auth/invitations/accept", { body: { token }, headers: { cookie: person.cookie, origin: workerUrl(), ...headers } });

/** A sign-up that must be refused: 403 SIGN_UP_CLOSED, and no user with that address. */
async function expectSignUpRefused(email: string, invitation: string | undefined) {
  const response = await authPost("/auth/sign-up/email", { email, password: "pw-long-enough-1", name: "Refused", invitation });
  expect(response.status).toBe(403);
  expect(((await response.json()) as { code: string }).code).toBe("SIGN_UP_CLOSED");
  expect(await query("select id from users where email = $1", [email.toLowerCase()])).toEqual([]);
}

const openInvitations = async (person: Person) => expectSuccess(await asPerson(person.cookie, "/v1/settings/invitations")).data as any[];

describe("accepting by sign-up", () => {
  it("the link names the address, role and organisation; sign-up with it joins with that role and makes no organisation", async () => {
    const owner = await signUp({ organisationName: `Dockside ${newEmail()}` });
    const email = newEmail("admin");
    const { token, id } = await invite(owner, email, "admin");
    const shown = expectSuccess(await api(`/auth/invitations/${token}`)).data;
    expect(shown).toEqual({ email, role: "admin", organisation: expect.stringMatching(/^Dockside /) });
    expect((await openInvitations(owner)).map((i) => i.id)).toEqual([id]);

    const admin = await signUp({ email, invitation: token! });
    expect(admin.orgId).toBe(owner.orgId);
    expect(await membershipsOf(admin.userId)).toEqual([{ org_id: owner.orgId, role: "admin" }]);
    const me = expectSuccess(await asPerson(admin.cookie, "/v1/settings/session")).data;
    expect(me).toMatchObject({ role: "admin", organisation: { id: owner.orgId }, organisations: [{ id: owner.orgId, role: "admin" }] });
    // Used: no longer open, no longer shown, and marked accepted by the new person.
    expect(await openInvitations(owner)).toEqual([]);
    expectError(await api(`/auth/invitations/${token}`), 404, "not_found");
    expect(await query("select accepted_by from invitations where id = $1", [id])).toEqual([{ accepted_by: admin.userId }]);
  });

  it("the address is matched whatever its case", async () => {
    const owner = await signUp();
    const email = newEmail("case");
    const { token } = await invite(owner, email.toUpperCase(), "member");
    const member = await signUp({ email, invitation: token! });
    expect(await membershipsOf(member.userId)).toEqual([{ org_id: owner.orgId, role: "member" }]);
  });

  it("refused, creating no user, for another address, a revoked, used, expired or unknown link", async () => {
    const owner = await signUp();
    const email = newEmail("invitee");
    const { token } = await invite(owner, email, "member");
    await expectSignUpRefused(newEmail("someone-else"), token);

    const revoked = await invite(owner, newEmail("revoked"), "member");
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/invitations/${revoked.id}`, { method: "DELETE" }));
    expectError(await api(`/auth/invitations/${revoked.token}`), 404, "not_found");
    await expectSignUpRefused(revoked.response.body.data.email, revoked.token);

    await signUp({ email, invitation: token! });
    await expectSignUpRefused(newEmail("second"), token);

    const expired = await invite(owner, newEmail("expired"), "member");
    await query("update invitations set expires_at = now() - interval '1 second' where id = $1", [expired.id]);
    expectError(await api(`/auth/invitations/${expired.token}`), 404, "not_found");
    await expectSignUpRefused(expired.response.body.data.email, expired.token);

    await expectSignUpRefused(newEmail("unknown"), "not-a-token");
    expectError(await api("/auth/invitations/not-a-token"), 404, "not_found");
    expect(await membershipsOf(owner.userId)).toEqual([{ org_id: owner.orgId, role: "owner" }]);
  });
});

describe("accepting when signed in", () => {
  it("a person with an account signs in and accepts: a member of both, the session now acting for the new organisation with the invited role", async () => {
    const [owner, account] = [await signUp(), await signUp()];
    const { token } = await invite(owner, account.email, "admin");
    const existing = await signedIn(account);
    const accepted = expectSuccess(await accept(existing, token)).data;
    expect(accepted).toEqual({ organisation: owner.orgId, role: "admin" });
    expect(await membershipsOf(existing.userId)).toEqual([
      { org_id: existing.orgId, role: "owner" },
      { org_id: owner.orgId, role: "admin" },
    ]);
    const me = expectSuccess(await asPerson(existing.cookie, "/v1/settings/session")).data;
    expect(me).toMatchObject({ organisation: { id: owner.orgId }, role: "admin" });
    expect(me.organisations.map((o: any) => [o.id, o.role])).toEqual([
      [existing.orgId, "owner"],
      [owner.orgId, "admin"],
    ]);
    // Used once.
    expectError(await accept(existing, token), 404, "not_found");
  });

  it("refused for another address, a revoked, used or unknown link, without a session, cross-site, or without a token", async () => {
    const [owner, stranger] = [await signUp(), await signUp()];
    const invitee = await signUp();
    const { token, id } = await invite(owner, invitee.email, "member");
    const before = await peopleTrace(owner.orgId, stranger.orgId);

    expectError(await accept(stranger, token), 404, "not_found");
    expectError(await api("/auth/invitations/accept", { body: { token }, headers: { origin: workerUrl() } }), 401, "unauthorized");
    expectError(await accept(invitee, token, { origin: "https://evil.example" }), 403, "cross_site_request");
    expectError(await accept({ ...invitee, cookie: invitee.cookie.replace(/.$/, "") }, token), 401, "unauthorized");
    expectError(await accept(invitee, undefined), 400, "missing_field", { field: "token" });
    expectError(await accept(invitee, "not-a-token"), 404, "not_found");
    expect(await peopleTrace(owner.orgId, stranger.orgId)).toEqual(before);
    expect(await membershipsOf(invitee.userId)).toEqual([{ org_id: invitee.orgId, role: "owner" }]);

    expectSuccess(await asPerson(owner.cookie, `/v1/settings/invitations/${id}`, { method: "DELETE" }));
    expectError(await accept(invitee, token), 404, "not_found");
    // Revoking twice: it is no longer open.
    expectError(await asPerson(owner.cookie, `/v1/settings/invitations/${id}`, { method: "DELETE" }), 404, "not_found");
    expect(await membershipsOf(invitee.userId)).toEqual([{ org_id: invitee.orgId, role: "owner" }]);
  });
});

describe("who may be invited, and by whom", () => {
  it("one open invitation per address (whatever its case); once revoked, a new one may be sent", async () => {
    const owner = await signUp();
    const email = newEmail("twice");
    const first = await invite(owner, email, "member");
    expect(first.response.status).toBe(201);
    const before = await peopleTrace(owner.orgId);
    expectError((await invite(owner, email, "admin")).response, 409, "conflict", { field: "email" });
    expectError((await invite(owner, email.toUpperCase(), "member")).response, 409, "conflict", { field: "email" });
    expect(await peopleTrace(owner.orgId)).toEqual(before);
    // Another organisation may invite the same address.
    expect((await invite(await signUp(), email, "member")).response.status).toBe(201);
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/invitations/${first.id}`, { method: "DELETE" }));
    const second = await invite(owner, email, "admin");
    expect(second.response.status).toBe(201);
    // The revoked link stays dead; the new one works.
    await expectSignUpRefused(email, first.token);
    const person = await signUp({ email, invitation: second.token! });
    expect(await membershipsOf(person.userId)).toEqual([{ org_id: owner.orgId, role: "admin" }]);
  });

  it("an address that is already a member: 409 conflict", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const before = await peopleTrace(owner.orgId);
    expectError((await invite(owner, member.email, "admin")).response, 409, "conflict", { field: "email" });
    expectError((await invite(owner, owner.email.toUpperCase(), "member")).response, 409, "conflict", { field: "email" });
    expect(await peopleTrace(owner.orgId)).toEqual(before);
  });

  it("only an owner invites an owner; an admin invites admins and members", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const before = await peopleTrace(owner.orgId);
    expectError((await invite(admin, newEmail(), "owner")).response, 403, "insufficient_role", { field: "role" });
    expect(await peopleTrace(owner.orgId)).toEqual(before);
    for (const role of ["admin", "member"] as const) expect((await invite(admin, newEmail(), role)).response.status).toBe(201);

    const email = newEmail("co-owner");
    const { token } = await invite(owner, email, "owner");
    const coOwner = await signUp({ email, invitation: token! });
    expect(await membershipsOf(coOwner.userId)).toEqual([{ org_id: owner.orgId, role: "owner" }]);
    // Invitations list who invited, and a member may not see them.
    const listed = await openInvitations(owner);
    expect(listed.every((i) => i.invitedBy?.id === admin.userId)).toBe(true);
    expect(listed.map((i) => i.role).sort()).toEqual(["admin", "member"]);
    expectError(await asPerson((await memberOf(owner, "member")).cookie, "/v1/settings/invitations"), 403, "insufficient_role");
  });
});
