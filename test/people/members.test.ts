import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Role } from "../../domain/roles.ts";
import { expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { asPerson, fixturesOf, memberOf, membershipsOf, peopleTrace, signedIn, signUp, type Person } from "../helpers/people.ts";
import { taskBody } from "../helpers/resources.ts";

// Members and roles: owners and admins change roles and remove members; only an owner makes,
// changes or removes an owner; anyone may leave; an organisation always keeps an owner. A role
// change applies to the person's next call, and a removed member's sessions stop at once.

const setRole = (caller: Person, target: Person, role: Role) =>
  asPerson(caller.cookie, `/v1/settings/members/${target.userId}`, { method: "PATCH", body: { role } });
const remove = (caller: Person, target: Person) => asPerson(caller.cookie, `/v1/settings/members/${target.userId}`, { method: "DELETE" });

/** Asserts the call was refused with `status` and `code` and left the organisation as it was. */
async function refusedWith(
  orgId: string,
  call: () => Promise<ApiResponse>,
  status: number,
  code: string,
  details: Record<string, unknown> = {},
) {
  const before = await peopleTrace(orgId);
  expectError(await call(), status, code, details);
  expect(await peopleTrace(orgId), "a refused change leaves no trace").toEqual(before);
}

const roles = async (viewer: Person) =>
  Object.fromEntries(
    ((expectSuccess(await asPerson(viewer.cookie, "/v1/settings/members")).data as any[]) ?? []).map((m) => [m.userId, m.role]),
  );

describe("role changes", () => {
  it("an owner promotes and demotes; the session's role and scopes follow at its next call", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    expectError(await asPerson(member.cookie, "/v1/settings/api-keys"), 403, "insufficient_role");
    const changed = expectSuccess(await setRole(owner, member, "admin")).data;
    expect(changed).toMatchObject({ userId: member.userId, role: "admin", email: member.email });
    expectSuccess(await asPerson(member.cookie, "/v1/settings/api-keys"));
    expect(expectSuccess(await asPerson(member.cookie, "/v1/settings/session")).data.scopes).toContain("financials.manage");
    expectSuccess(await setRole(owner, member, "member"));
    expectError(await asPerson(member.cookie, "/v1/settings/api-keys"), 403, "insufficient_role");
    expectError(await asPerson(member.cookie, "/v1/financial-entries"), 403, "insufficient_scope", { scope: "financials.read" });
    expect(await roles(owner)).toEqual({ [owner.userId]: "owner", [member.userId]: "member" });
  });

  it("an admin changes members and admins, and never an owner's seat", async () => {
    const owner = await signUp();
    const [admin, other, member] = [await memberOf(owner, "admin"), await memberOf(owner, "admin"), await memberOf(owner, "member")];
    // A second owner: the refusals below are about the admin's role, not about the last owner.
    const coOwner = await memberOf(owner, "owner");
    expectSuccess(await setRole(admin, member, "admin"));
    expectSuccess(await setRole(admin, other, "member"));
    const only = { roles: ["owner"] };
    for (const target of [owner, coOwner]) {
      await refusedWith(owner.orgId, () => setRole(admin, target, "admin"), 403, "insufficient_role", only);
      await refusedWith(owner.orgId, () => setRole(admin, target, "member"), 403, "insufficient_role", only);
      await refusedWith(owner.orgId, () => remove(admin, target), 403, "insufficient_role", only);
    }
    await refusedWith(owner.orgId, () => setRole(admin, member, "owner"), 403, "insufficient_role", only);
    await refusedWith(owner.orgId, () => setRole(admin, admin, "owner"), 403, "insufficient_role", only);
    expect(await roles(owner)).toEqual({
      [owner.userId]: "owner",
      [admin.userId]: "admin",
      [other.userId]: "member",
      [member.userId]: "admin",
      [coOwner.userId]: "owner",
    });
  });

  it("a member changes no one, themselves included", async () => {
    const owner = await signUp();
    const [member, other] = [await memberOf(owner, "member"), await memberOf(owner, "member")];
    const managers = { roles: ["owner", "admin"] };
    await refusedWith(owner.orgId, () => setRole(member, member, "admin"), 403, "insufficient_role", managers);
    await refusedWith(owner.orgId, () => setRole(member, other, "admin"), 403, "insufficient_role", managers);
    await refusedWith(owner.orgId, () => remove(member, other), 403, "insufficient_role", managers);
    await refusedWith(owner.orgId, () => remove(member, owner), 403, "insufficient_role");
  });

  it("an unknown member, or one of another organisation: 404 not_found", async () => {
    const [owner, stranger] = [await signUp(), await signUp()];
    const path = `/v1/settings/members/${randomUUID()}`;
    await refusedWith(owner.orgId, () => asPerson(owner.cookie, path, { method: "PATCH", body: { role: "admin" } }), 404, "not_found");
    await refusedWith(owner.orgId, () => asPerson(owner.cookie, path, { method: "DELETE" }), 404, "not_found");
    await refusedWith(stranger.orgId, () => setRole(owner, stranger, "member"), 404, "not_found");
    await refusedWith(stranger.orgId, () => remove(owner, stranger), 404, "not_found");
  });
});

describe("owners", () => {
  it("the last owner can neither leave nor step down (409 conflict); with a second owner, either may", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    await refusedWith(owner.orgId, () => remove(owner, owner), 409, "conflict");
    for (const role of ["admin", "member"] as const) await refusedWith(owner.orgId, () => setRole(owner, owner, role), 409, "conflict");
    // Making an owner of an owner changes nothing and is allowed.
    expectSuccess(await setRole(owner, owner, "owner"));

    expectSuccess(await setRole(owner, admin, "owner"));
    expectSuccess(await setRole(owner, owner, "admin"));
    // Now the former admin is the only owner: the same rules hold for them.
    await refusedWith(owner.orgId, () => remove(admin, admin), 409, "conflict");
    await refusedWith(owner.orgId, () => setRole(owner, admin, "member"), 403, "insufficient_role");
    expectSuccess(await setRole(admin, owner, "owner"));
    expectSuccess(await setRole(owner, admin, "member"));
    expect(await roles(owner)).toEqual({ [owner.userId]: "owner", [admin.userId]: "member" });
  });

  // Each change locks the owners' rows while it counts them; two at once must wait for each other
  // (never deadlock: 500), and the organisation keeps exactly one owner. Several pairs run at once.
  const RACES: Array<[string, (a: Person, b: Person) => Array<Promise<ApiResponse>>]> = [
    ["both leave", (a, b) => [remove(a, a), remove(b, b)]],
    ["each removes the other", (a, b) => [remove(a, b), remove(b, a)]],
    ["each demotes the other", (a, b) => [setRole(a, b, "admin"), setRole(b, a, "admin")]],
  ];
  for (const [label, race] of RACES) {
    it(`two owners at the same moment (${label}): one change is made, the other refused, one owner remains`, async () => {
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          const owner = await signUp();
          const second = await memberOf(owner, "owner");
          const answers = await Promise.all(race(owner, second));
          const [won, lost] = answers[0]!.status < 300 ? answers : [answers[1]!, answers[0]!];
          expectSuccess(won!);
          // The loser is refused as the last owner's remover (409), as no longer an owner (403), or as
          // no longer a member (401), by timing.
          const code = { 409: "conflict", 403: "insufficient_role", 401: "unauthorized" }[lost!.status as 409 | 403 | 401];
          expect(code, `${lost!.status} ${lost!.text}`).toBeDefined();
          expectError(lost!, lost!.status, code!);
          const owners = [...(await membershipsOf(owner.userId)), ...(await membershipsOf(second.userId))].filter(
            (m) => m.role === "owner",
          );
          expect(owners).toHaveLength(1);
        }),
      );
    });
  }
});

describe("leaving and removal", () => {
  it("a member leaves: every session of theirs is refused on /v1 at once, and nothing is written", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const again = await signedIn(member);
    const body = await taskBody(fixturesOf(owner.orgId));
    expectSuccess(await asPerson(member.cookie, "/v1/tasks"));
    expectSuccess(await remove(member, member));
    const before = await peopleTrace(owner.orgId);
    for (const session of [member, again]) {
      expectError(await asPerson(session.cookie, "/v1/tasks"), 401, "unauthorized");
      expectError(await asPerson(session.cookie, "/v1/tasks", { body }), 401, "unauthorized");
      expectError(await asPerson(session.cookie, "/v1/settings/members"), 401, "unauthorized");
      expectError(await asPerson(session.cookie, "/v1/settings/session"), 401, "unauthorized");
    }
    expect(await peopleTrace(owner.orgId)).toEqual(before);
    expect(Object.keys(await roles(owner))).toEqual([owner.userId]);
  });

  it("an admin removes a member, whose session is refused at its next call; re-invited, they come back", async () => {
    const owner = await signUp();
    const [admin, member] = [await memberOf(owner, "admin"), await memberOf(owner, "member")];
    expectSuccess(await asPerson(member.cookie, "/v1/projects"));
    const removed = expectSuccess(await remove(admin, member)).data;
    expect(removed).toMatchObject({ userId: member.userId, role: "member" });
    expectError(await asPerson(member.cookie, "/v1/projects"), 401, "unauthorized");
    expectError(await remove(admin, member), 404, "not_found");
    // Invited again, they accept with their account, and their session acts for the organisation again.
    const invited = await asPerson(owner.cookie, "/v1/settings/invitations", { body: { email: member.email, role: "admin" } });
    const token = new URL(expectSuccess(invited, 201).data.url).hash.slice(1);
    const back = await signedIn(member);
    expectSuccess(await asPerson(back.cookie, "/auth/invitations/accept", { body: { token } }));
    expect(expectSuccess(await asPerson(back.cookie, "/v1/settings/session")).data).toMatchObject({
      organisation: { id: owner.orgId },
      role: "admin",
    });
  });

  it("an admin may leave; an owner may remove an owner when another remains", async () => {
    const owner = await signUp();
    const [admin, second] = [await memberOf(owner, "admin"), await memberOf(owner, "owner")];
    expectSuccess(await remove(admin, admin));
    expectError(await asPerson(admin.cookie, "/v1/settings/members"), 401, "unauthorized");
    expectSuccess(await remove(owner, second));
    expectError(await asPerson(second.cookie, "/v1/settings/members"), 401, "unauthorized");
    expect(Object.keys(await roles(owner))).toEqual([owner.userId]);
  });
});
