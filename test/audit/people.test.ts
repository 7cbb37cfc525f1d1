import { describe, expect, it } from "vitest";
import { expectSuccess } from "../helpers/api.ts";
import { auditRows, expectFromThisRequest, expectOneEntry, writerOf } from "../helpers/audit.ts";
import { query } from "../helpers/database.ts";
import { asPerson, authPost, cookieOf, invite, memberOf, newEmail, signIn, signUp } from "../helpers/people.ts";

// People in the audit log: sign-up, sign-in (and its failures, without the password), sign-out;
// members invited, joined, their role changed, removed, or leaving. One entry each, by the right
// person, from this request.

const actorOf = (person: { userId: string; name: string }) => ({ type: "user", id: person.userId, name: person.name });

describe("audit: signing up, in and out", () => {
  it("a sign-up is its new organisation's first entry, by the new person, from this request (no separate sign-in)", async () => {
    const owner = await signUp({ name: "Ada", organisationName: "Acme" });
    const rows = await auditRows(owner.orgId);
    expect(rows.map((row) => row.action)).toEqual(["user.signed_up"]);
    expect(rows[0]).toMatchObject({
      sequence: "1",
      actor: actorOf(owner),
      target: { type: "user", id: owner.userId, name: "Ada" },
      changes: { organisation: { from: null, to: "Acme" } },
    });
    expectFromThisRequest(rows[0]!);
    expect(rows[0]!.xmin).toBe(await writerOf("memberships", owner.userId, "user_id"));
  });

  it("a sign-in, a refused one (never the password) and a sign-out: one entry each", async () => {
    const owner = await signUp();
    const signedIn = await expectOneEntry(owner.orgId, "user.signed_in", async () => {
      expect((await signIn(owner.email, owner.password)).status).toBe(200);
    });
    expect(signedIn).toMatchObject({ actor: actorOf(owner), target: { type: "user", id: owner.userId } });
    expectFromThisRequest(signedIn);
    const wrong = "not-the-password-4f1c";
    const failed = await expectOneEntry(owner.orgId, "user.sign_in_failed", async () => {
      expect((await signIn(owner.email, wrong)).status).toBe(401);
    });
    expect(failed).toMatchObject({ target: { type: "user", id: owner.userId }, changes: null });
    expectFromThisRequest(failed);
    expect(JSON.stringify(await query("select * from audit_entries where org_id = $1", [owner.orgId]))).not.toContain(wrong);
    const cookie = cookieOf(await signIn(owner.email, owner.password));
    const signedOut = await expectOneEntry(owner.orgId, "user.signed_out", async () => {
      expect((await authPost("/auth/sign-out", {}, { cookie })).status).toBe(200);
    });
    expect(signedOut).toMatchObject({ actor: actorOf(owner) });
    expectFromThisRequest(signedOut);
  });

  it("a sign-in with an address no one has records nothing (there is no organisation to record it in)", async () => {
    const owner = await signUp();
    const before = await auditRows(owner.orgId);
    const nobody = newEmail("nobody");
    expect((await signIn(nobody, "whatever-password")).status).toBe(401);
    expect(await auditRows(owner.orgId)).toEqual(before);
    expect(await query("select 1 from audit_entries where target->>'name' = $1 or actor->>'name' = $1", [nobody])).toEqual([]);
  });
});

describe("audit: members", () => {
  it("invited, then joined by signing up with the link: the inviter, then the new member", async () => {
    const owner = await signUp();
    const email = newEmail("invitee");
    let token = "";
    const invited = await expectOneEntry(owner.orgId, "member.invited", async () => {
      token = (await invite(owner, email, "admin")).token!;
    });
    expect(invited).toMatchObject({
      actor: actorOf(owner),
      target: { type: "invitation", name: email },
      changes: { role: { from: null, to: "admin" } },
    });
    expectFromThisRequest(invited);
    let joiner: Awaited<ReturnType<typeof signUp>> | undefined;
    const joined = await expectOneEntry(owner.orgId, "member.joined", async () => {
      joiner = await signUp({ email, invitation: token, name: "Newcomer" });
    });
    expect(joined).toMatchObject({
      actor: { type: "user", id: joiner!.userId, name: "Newcomer" },
      target: { type: "member", id: joiner!.userId, name: "Newcomer" },
      changes: { role: { from: null, to: "admin" } },
    });
    expectFromThisRequest(joined);
    expect(joined.xmin).toBe(await writerOf("memberships", joiner!.userId, "user_id"));
  });

  it("joined by a signed-in person accepting an invitation", async () => {
    const owner = await signUp();
    const other = await signUp();
    const { token } = await invite(owner, other.email, "member");
    const joined = await expectOneEntry(owner.orgId, "member.joined", async () => {
      expectSuccess(await asPerson(other.cookie, "/auth/invitations/accept", { body: { token } }));
    });
    expect(joined).toMatchObject({ actor: actorOf(other), target: { type: "member", id: other.userId } });
    expectFromThisRequest(joined);
  });

  it("role changed, removed, and left: from and to; a refused change records nothing", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const member = await memberOf(owner, "member");
    const changed = await expectOneEntry(owner.orgId, "member.role_changed", async () => {
      expectSuccess(await asPerson(admin.cookie, `/v1/settings/members/${member.userId}`, { method: "PATCH", body: { role: "admin" } }));
    });
    expect(changed).toMatchObject({
      actor: actorOf(admin),
      target: { type: "member", id: member.userId },
      changes: { role: { from: "member", to: "admin" } },
    });
    expectFromThisRequest(changed);
    const before = await auditRows(owner.orgId);
    // An admin cannot make an owner, and the last owner cannot leave.
    expect(
      (await asPerson(admin.cookie, `/v1/settings/members/${member.userId}`, { method: "PATCH", body: { role: "owner" } })).status,
    ).toBe(403);
    expect((await asPerson(owner.cookie, `/v1/settings/members/${owner.userId}`, { method: "DELETE" })).status).toBe(409);
    expect(await auditRows(owner.orgId)).toEqual(before);
    const removed = await expectOneEntry(owner.orgId, "member.removed", async () => {
      expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${member.userId}`, { method: "DELETE" }));
    });
    expect(removed).toMatchObject({
      actor: actorOf(owner),
      target: { type: "member", id: member.userId },
      changes: { role: { from: "admin", to: null } },
    });
    const left = await expectOneEntry(owner.orgId, "member.left", async () => {
      expectSuccess(await asPerson(admin.cookie, `/v1/settings/members/${admin.userId}`, { method: "DELETE" }));
    });
    expect(left).toMatchObject({ actor: actorOf(admin), target: { type: "member", id: admin.userId } });
    expectFromThisRequest(left);
  });
});
