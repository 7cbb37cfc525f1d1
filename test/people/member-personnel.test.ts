import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { snapshot } from "../helpers/database.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { asPerson, fixturesOf, invite, memberOf, newEmail, signUp, type Person } from "../helpers/people.ts";
import { expectOneWrite, expectRefused, storedEvents } from "../helpers/resources.ts";

// A member (who signs in) may be a personnel record (who tasks are assigned to): owners and admins
// link and unlink them (PUT /v1/settings/members/{userId}/personnel), an accepted invitation links
// the person with the invitee's address or makes one, a removed member is unlinked; each change is
// the person's, with its event. ?assigneeId=me lists the caller's own tasks.

const link = (caller: Person, userId: string, personnelId: string | null) =>
  asPerson(caller.cookie, `/v1/settings/members/${userId}/personnel`, { method: "PUT", body: { personnelId } });

const members = async (viewer: Person) => expectSuccess(await asPerson(viewer.cookie, "/v1/settings/members")).data as any[];
const linkOf = async (viewer: Person, userId: string) => (await members(viewer)).find((m) => m.userId === userId)?.personnelId;
const person = async (viewer: Person, id: string) => expectSuccess(await asPerson(viewer.cookie, `/v1/personnel/${id}`)).data;
const myTasks = (caller: Person) => asPerson(caller.cookie, "/v1/tasks?assigneeId=me");

describe("an accepted invitation", () => {
  it("makes the invitee a person of the organisation, linked to them (personnel.created)", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const personnelId = await linkOf(owner, member.userId);
    expect(personnelId).toEqual(expect.any(String));
    expect(await person(owner, personnelId)).toMatchObject({ email: member.email, name: member.name, userId: member.userId, active: true });
    const events = (await storedEvents(owner.orgId)).filter((e) => e.data.id === personnelId);
    expect(events.map((e) => e.type)).toEqual(["personnel.created"]);
  });

  it("links the person who has the invitee's address already (personnel.updated, changes.userId)", async () => {
    const owner = await signUp();
    const email = newEmail("known");
    const known = await fixturesOf(owner.orgId).insertPerson({ email: email.toUpperCase() });
    const { token } = await invite(owner, email, "member");
    const before = await snapshot(owner.orgId);
    const member = await signUp({ email, invitation: token });
    const event = await expectOneWrite(owner.orgId, before, "personnel.updated");
    expect(event.changes).toEqual({ userId: { from: null, to: member.userId } });
    expect(await linkOf(owner, member.userId)).toBe(known.id);
    expect((await person(owner, known.id)).version).toBe(2);
  });
});

describe("PUT /v1/settings/members/{userId}/personnel", () => {
  it("an owner links themselves; the link shows on the member and the person; ?assigneeId=me lists their tasks", async () => {
    const owner = await signUp();
    const tenant = fixturesOf(owner.orgId);
    const me = await tenant.insertPerson();
    const other = await tenant.insertPerson();
    const mine = await tenant.insertTask({ assigneeId: me.id });
    await tenant.insertTask({ assigneeId: other.id });
    expectError(await myTasks(owner), 400, "invalid_field", { field: "assigneeId" });

    const before = await snapshot(owner.orgId);
    const linked = expectSuccess(await link(owner, owner.userId, me.id)).data;
    expect(linked).toEqual({ userId: owner.userId, personnelId: me.id });
    const event = await expectOneWrite(owner.orgId, before, "personnel.updated");
    expect(event.changes).toEqual({ userId: { from: null, to: owner.userId } });
    expect(await linkOf(owner, owner.userId)).toBe(me.id);
    expect(await person(owner, me.id)).toMatchObject({ userId: owner.userId, version: 2 });
    expect((expectSuccess(await myTasks(owner)).data as any[]).map((t) => t.id)).toEqual([mine.id]);

    // Linking again changes nothing; unlinking is a change of the person, and `me` is no one again.
    const again = await snapshot(owner.orgId);
    expectSuccess(await link(owner, owner.userId, me.id));
    expect(await snapshot(owner.orgId)).toEqual(again);
    expectSuccess(await link(owner, owner.userId, null));
    const unlinked = await expectOneWrite(owner.orgId, again, "personnel.updated");
    expect(unlinked.changes).toEqual({ userId: { from: owner.userId, to: null } });
    expect(await linkOf(owner, owner.userId)).toBeNull();
    expectError(await myTasks(owner), 400, "invalid_field", { field: "assigneeId" });
    // Unlinking a member linked to no one is a no-op.
    const idle = await snapshot(owner.orgId);
    expect(expectSuccess(await link(owner, owner.userId, null)).data).toEqual({ userId: owner.userId, personnelId: null });
    expect(await snapshot(owner.orgId)).toEqual(idle);
  });

  it("refuses a member's role, an API key, another organisation's member or person, a taken person or member, a bad body", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const admin = await memberOf(owner, "admin");
    const stranger = await signUp();
    const tenant = fixturesOf(owner.orgId);
    const free = await tenant.insertPerson();
    const theirs = await fixturesOf(stranger.orgId).insertPerson();
    const memberPerson = await linkOf(owner, member.userId);
    const org = owner.orgId;

    await expectRefused(org, () => link(member, member.userId, free.id), 403, "insufficient_role");
    const key = await keyWith(org, ["organisation.manage"]);
    await expectRefused(
      org,
      () => api(`/v1/settings/members/${owner.userId}/personnel`, { method: "PUT", key: key.key, body: { personnelId: free.id } }),
      401,
      "unauthorized",
    );
    await expectRefused([org, stranger.orgId], () => link(owner, stranger.userId, free.id), 404, "not_found");
    await expectRefused(org, () => link(owner, randomUUID(), null), 404, "not_found");
    await expectRefused([org, stranger.orgId], () => link(owner, owner.userId, theirs.id), 400, "invalid_reference", {
      field: "personnelId",
    });
    await expectRefused(org, () => link(owner, owner.userId, randomUUID()), 400, "invalid_reference", { field: "personnelId" });
    // The member's person is theirs: no one else is it.
    await expectRefused(org, () => link(admin, owner.userId, memberPerson), 409, "conflict", { field: "personnelId" });
    // A member linked already is unlinked first.
    await expectRefused(org, () => link(owner, member.userId, free.id), 409, "conflict", { field: "personnelId" });
    await expectRefused(org, () => link(owner, owner.userId, "not-an-id" as never), 400, "invalid_field", { field: "personnelId" });
    await expectRefused(
      org,
      () => asPerson(owner.cookie, `/v1/settings/members/${owner.userId}/personnel`, { method: "PUT", body: {} }),
      400,
      ["missing_field", "invalid_field"],
    );
    // The link is the member's: a change of the person does not set it.
    await expectRefused(
      org,
      () => asPerson(owner.cookie, `/v1/personnel/${free.id}`, { method: "PATCH", body: { userId: owner.userId } }),
      400,
      "unknown_field",
    );
    // An admin links and unlinks.
    expectSuccess(await link(admin, owner.userId, free.id));
    expect(await linkOf(owner, owner.userId)).toBe(free.id);
  });
});

describe("a member removed", () => {
  it("is no longer the person they were (personnel.updated)", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const personnelId = await linkOf(owner, member.userId);
    const before = await snapshot(owner.orgId);
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${member.userId}`, { method: "DELETE" }));
    const event = await expectOneWrite(owner.orgId, before, "personnel.updated");
    expect(event.changes).toEqual({ userId: { from: member.userId, to: null } });
    expect(await person(owner, personnelId)).toMatchObject({ userId: null, active: true });
  });
});

describe("?assigneeId=me", () => {
  it("an API key is no one: 400 invalid_field; without tasks.read, 403 first", async () => {
    const owner = await signUp();
    const reader = await keyWith(owner.orgId, ["tasks.read"]);
    expectError(await api("/v1/tasks?assigneeId=me", { key: reader.key }), 400, "invalid_field", { field: "assigneeId" });
    const other = await keyWith(owner.orgId, ["projects.read"]);
    expectError(await api("/v1/tasks?assigneeId=me", { key: other.key }), 403, "insufficient_scope", { scope: "tasks.read" });
    expectError(await api("/v1/tasks?assigneeId=you", { key: reader.key }), 400, "invalid_field", { field: "assigneeId" });
  });
});
