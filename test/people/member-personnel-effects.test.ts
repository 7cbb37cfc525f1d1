import { describe, expect, it } from "vitest";
import { api, expectSuccess, workerUrl } from "../helpers/api.ts";
import { auditRows, expectFromThisRequest, expectOneEntry } from "../helpers/audit.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { asPerson, fixturesOf, invite, newEmail, signUp, type Person } from "../helpers/people.ts";
import { connectToRoom, withRoom } from "../helpers/realtime.ts";

// What follows a member's link to a person beyond the person's own change
// (test/people/member-personnel.test.ts): the person an accepted invitation makes or links reaches
// the organisation's room at once (not at the sweep's next pass), and the settings area's link and
// unlink are in the audit log, as every change of who may do what is.

const link = (caller: Person, userId: string, personnelId: string | null) =>
  asPerson(caller.cookie, `/v1/settings/members/${userId}/personnel`, { method: "PUT", body: { personnelId } });

/** A socket to `orgId`'s room, open before the test's write, so only a publish can bring its events. */
const roomOf = async (orgId: string) => connectToRoom(orgId, { apiKey: (await keyWith(orgId, ["organisation.read"])).key });

describe("an accepted invitation's person reaches the room at once", () => {
  it("at sign-up with the invitation (personnel.created), with no sweep", async () => {
    await withRoom(async () => {
      const owner = await signUp();
      const room = await roomOf(owner.orgId);
      await room.ready;
      const email = newEmail("joiner");
      const { token } = await invite(owner, email, "member");
      const member = await signUp({ email, invitation: token });
      const [event] = await room.waitForEvents(1, 5_000);
      expect(event).toMatchObject({ type: "personnel.created", data: { userId: member.userId, email } });
    });
  });

  it("signed in, accepting (personnel.updated when the address is a person already), with no sweep", async () => {
    await withRoom(async () => {
      const owner = await signUp();
      const invitee = await signUp();
      const known = await fixturesOf(owner.orgId).insertPerson({ email: invitee.email });
      const room = await roomOf(owner.orgId);
      await room.ready;
      const { token } = await invite(owner, invitee.email, "member");
      const accepted = await api("/auth/invitations/accept", { body: { token }, headers: { cookie: invitee.cookie, origin: workerUrl() } });
      expect(accepted.status, accepted.text).toBe(200);
      const [event] = await room.waitForEvents(1, 5_000);
      expect(event).toMatchObject({ type: "personnel.updated", data: { id: known.id, userId: invitee.userId } });
    });
  });
});

describe("PUT /v1/settings/members/{userId}/personnel in the audit log", () => {
  it("a link is member.linked, an unlink member.unlinked, each naming the person; a no-op records nothing", async () => {
    const owner = await signUp();
    const person = await fixturesOf(owner.orgId).insertPerson();
    const actor = { type: "user", id: owner.userId, name: owner.name };
    const linked = await expectOneEntry(owner.orgId, "member.linked", async () => {
      expectSuccess(await link(owner, owner.userId, person.id));
    });
    expect(linked).toMatchObject({
      actor,
      target: { type: "member", id: owner.userId, name: owner.name },
      changes: { personnelId: { from: null, to: person.id } },
    });
    expectFromThisRequest(linked);

    const before = await auditRows(owner.orgId);
    expectSuccess(await link(owner, owner.userId, person.id));
    expect(await auditRows(owner.orgId), "linking again changes nothing").toEqual(before);

    const unlinked = await expectOneEntry(owner.orgId, "member.unlinked", async () => {
      expectSuccess(await link(owner, owner.userId, null));
    });
    expect(unlinked).toMatchObject({ actor, changes: { personnelId: { from: person.id, to: null } } });
    const after = await auditRows(owner.orgId);
    expectSuccess(await link(owner, owner.userId, null));
    expect(await auditRows(owner.orgId), "unlinking no one changes nothing").toEqual(after);
  });

  it("a refused link records nothing", async () => {
    const owner = await signUp();
    const before = await auditRows(owner.orgId);
    const refused = await link(owner, owner.userId, "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10");
    expect(refused.status).toBe(400);
    expect(await auditRows(owner.orgId)).toEqual(before);
  });
});
