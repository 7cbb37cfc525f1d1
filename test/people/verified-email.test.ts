import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectOneEntry } from "../helpers/audit.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { linkIn, mailWithSubject } from "../helpers/mail.ts";
import { asPerson, memberOf, peopleTrace, signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { projectBody } from "../helpers/resources.ts";
import { refusedStatus } from "../helpers/sockets.ts";

// An owner may require confirmed addresses (docs/people.md "Confirmed addresses"): then a person
// whose address is unconfirmed reaches none of the organisation's data, through a session or an
// application acting for them (403 email_unverified), until they follow the link mailed to them.
// Who they are (GET /v1/settings/session) stays answered, so the console can say why and offer
// another link. API keys are no one, and keep working.

useRoom();

const SETTINGS = "/v1/settings/organisation";

/** Follows the confirmation link mailed to the person at sign-up (from the SMTP catcher). */
async function confirm(person: Person): Promise<void> {
  const mail = await mailWithSubject(person.email, "Confirm your opsroom address");
  const followed = await fetch(linkIn(mail), { redirect: "manual" });
  expect(followed.status).toBe(302);
  expect(followed.headers.get("location")).not.toContain("error");
}

/** An owner with a confirmed address, and an unconfirmed member of theirs. */
async function organisation() {
  const owner = await signUp();
  await confirm(owner);
  return { owner, member: await memberOf(owner, "member") };
}

const requireVerified = (owner: Person, on: boolean) =>
  asPerson(owner.cookie, SETTINGS, { method: "PATCH", body: { requireVerifiedEmail: on } });

describe("requiring confirmed addresses", () => {
  it("is off until an owner turns it on, audited; an admin may read it, not change it; bad input is refused, and none leaves a trace", async () => {
    const { owner } = await organisation();
    const admin = await memberOf(owner, "admin");
    expect(expectSuccess(await asPerson(admin.cookie, SETTINGS)).data).toEqual({
      allowDynamicClientRegistration: false,
      requireVerifiedEmail: false,
    });
    const before = await peopleTrace(owner.orgId);
    expectError(await requireVerified(admin, true), 403, "insufficient_role");
    for (const body of [{ requireVerifiedEmail: "yes" }, { requireVerifiedEmail: null }, { requireVerifiedEmail: 1 }])
      expect(expectError(await asPerson(owner.cookie, SETTINGS, { method: "PATCH", body }), 400, "invalid_field").error.field).toBe(
        "requireVerifiedEmail",
      );
    expectError(await asPerson(owner.cookie, SETTINGS, { method: "PATCH", body: { requireVerified: true } }), 400, "unknown_field");
    expect(await peopleTrace(owner.orgId)).toEqual(before);

    const entry = await expectOneEntry(owner.orgId, "organisation.updated", async () =>
      expect(expectSuccess(await requireVerified(owner, true)).data).toEqual({
        allowDynamicClientRegistration: false,
        requireVerifiedEmail: true,
      }),
    );
    expect(entry).toMatchObject({
      actor: { type: "user", id: owner.userId },
      target: { type: "organisation", id: owner.orgId },
      changes: { requireVerifiedEmail: { from: false, to: true } },
    });
    // Asked again, nothing differs: nothing written.
    const unchanged = await peopleTrace(owner.orgId);
    expect(expectSuccess(await requireVerified(owner, true)).data.requireVerifiedEmail).toBe(true);
    expect(await peopleTrace(owner.orgId)).toEqual(unchanged);
  });

  it("refuses an unconfirmed member's calls and realtime (no trace), answers who they are, and lets them through once confirmed", async () => {
    const { owner, member } = await organisation();
    const project = expectSuccess(await asPerson(owner.cookie, "/v1/projects", { body: projectBody() }), 201).data;
    // A realtime token minted before the setting: the room asks again at connect.
    const early = expectSuccess(await asPerson(member.cookie, "/v1/realtime/tokens", { body: {} }), 201).data.token as string;
    expectSuccess(await requireVerified(owner, true));

    const before = await snapshot(owner.orgId);
    for (const [path, options] of [
      ["/v1/projects", {}],
      ["/v1", {}],
      [SETTINGS, {}],
      ["/v1/tasks", { body: { title: "Refused", projectId: project.id } }],
      ["/v1/realtime/tokens", { body: {} }],
    ] as const) {
      const refused = expectError(await asPerson(member.cookie, path, options), 403, "email_unverified");
      expect(refused.message).toContain("POST /auth/send-verification-email");
    }
    expect(await refusedStatus(owner.orgId, early)).toBe(403);
    expectNoTrace(before, await snapshot(owner.orgId));
    // Who they are stays answered: the console says why, and offers another link.
    const session = expectSuccess(await asPerson(member.cookie, "/v1/settings/session")).data;
    expect(session.user).toMatchObject({ id: member.userId, emailVerified: false });
    expect(session.organisation).toEqual({ id: owner.orgId, name: expect.any(String), requireVerifiedEmail: true });
    // The owner, confirmed, is not refused; an API key of the organisation is no one, and is not either.
    expectSuccess(await asPerson(owner.cookie, "/v1/projects"));
    const key = expectSuccess(
      await asPerson(owner.cookie, "/v1/settings/api-keys", { body: { name: "ci", scopes: ["projects.read"] } }),
      201,
    ).data.key as string;
    expectSuccess(await api("/v1/projects", { key }));

    await confirm(member);
    expectSuccess(await asPerson(member.cookie, "/v1/projects"));
    expect(expectSuccess(await asPerson(member.cookie, "/v1/settings/session")).data.user.emailVerified).toBe(true);
    expect(await refusedStatus(owner.orgId, early)).toBe(101);
  });

  it("an unconfirmed owner who turns it on is held to it too, and may still ask who they are", async () => {
    const owner = await signUp();
    expectSuccess(await requireVerified(owner, true));
    expectError(await asPerson(owner.cookie, "/v1/projects"), 403, "email_unverified");
    expectError(await requireVerified(owner, false), 403, "email_unverified");
    expect(expectSuccess(await asPerson(owner.cookie, "/v1/settings/session")).data.organisation.requireVerifiedEmail).toBe(true);
    await confirm(owner);
    expect(expectSuccess(await requireVerified(owner, false)).data.requireVerifiedEmail).toBe(false);
  });
});
