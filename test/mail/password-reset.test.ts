import { describe, expect, it } from "vitest";
import { workerUrl } from "../helpers/api.ts";
import { expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { linkIn, mailTo, mailWithSubject, outboxFor } from "../helpers/mail.ts";
import { asPerson, authPost, memberOf, newEmail, signedIn, signIn, signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { socketWith } from "../helpers/sockets.ts";
import { pollUntil } from "../helpers/wait.ts";

// Password reset by mail (docs/people.md): a one-time link for an hour, on the public origin; the
// new password works, the old one and every old session do not; a used, expired or unknown token
// is refused; an address no one has gets the same answer and no mail. The sessions' realtime
// sockets close with them.

useRoom();

/** A realtime socket of the person's session, open. */
async function sessionSocket(person: Person) {
  const token = expectSuccess(await asPerson(person.cookie, "/v1/realtime/tokens", { body: {} }), 201).data.token as string;
  const socket = socketWith(person.orgId, { token });
  await socket.ready;
  return socket;
}

const requestReset = (email: string) => authPost("/auth/request-password-reset", { email });
const resetPassword = (token: string, newPassword: string) => authPost("/auth/reset-password", { token, newPassword });
const resetMail = (email: string) => mailWithSubject(email, "Reset your opsroom password");
const tokenOf = (link: string) => decodeURIComponent(new URL(link).hash.slice(1));

describe("a password reset", () => {
  it("mails a one-time link; the new password works once set, the old one and every session end, the link is refused after", async () => {
    const person = await signUp();
    const other = await signedIn(person);
    const asked = await requestReset(person.email.toUpperCase());
    expect(asked.status).toBe(200);
    const mail = await resetMail(person.email);
    expect(mail.subject).toBe("Reset your opsroom password");
    const link = linkIn(mail);
    expect(link.startsWith(`${workerUrl()}/reset-password#`)).toBe(true);
    expect(mail.html).toContain("Choose a new password");

    const newPassword = `new-${person.password}`;
    const reset = await resetPassword(tokenOf(link), newPassword);
    expect(reset.status, await reset.clone().text()).toBe(200);
    // Every session of the person ended.
    for (const cookie of [person.cookie, other.cookie]) expect((await asPerson(cookie, "/v1/settings/session")).status).toBe(401);
    expect((await signIn(person.email, person.password)).status).toBe(401);
    expect((await signIn(person.email, newPassword)).status).toBe(200);
    // Once only.
    const again = await resetPassword(tokenOf(link), `third-${person.password}`);
    expect(again.status).toBe(400);
    expect((await signIn(person.email, `third-${person.password}`)).status).toBe(401);
    // Recorded in the person's organisation.
    const entries = await query<{ action: string }>(
      `select action from audit_entries where org_id = $1 and action = 'user.password_reset'`,
      [person.orgId],
    );
    expect(entries.length).toBe(1);
  });

  it("closes the realtime sockets of every session it ends within 10 s; another person's stays open", async () => {
    const person = await signUp();
    const other = await signedIn(person);
    const colleague = await memberOf(person, "admin");
    const sockets = [await sessionSocket(person), await sessionSocket(other)];
    const colleagueSocket = await sessionSocket(colleague);
    expect((await requestReset(person.email)).status).toBe(200);
    const token = tokenOf(linkIn(await resetMail(person.email)));
    const reset = await resetPassword(token, `new-${person.password}`);
    expect(reset.status, await reset.clone().text()).toBe(200);
    const answered = Date.now();
    for (const socket of sockets) {
      const close = await Promise.race([socket.closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))]);
      expect(close, "closed within 10 s of the reset's answer").toEqual({ code: 4401, reason: expect.stringMatching(/session/) });
    }
    expect(Date.now() - answered).toBeLessThan(10_000);
    await colleagueSocket.pong();
  });

  it("an address no one has is answered as a known one, and gets no mail", async () => {
    const person = await signUp();
    const known = await requestReset(person.email);
    const unknownEmail = newEmail("nobody");
    const unknown = await requestReset(unknownEmail);
    expect(unknown.status).toBe(known.status);
    expect(await unknown.json()).toEqual(await known.json());
    await resetMail(person.email);
    expect(await outboxFor(unknownEmail)).toEqual([]);
    expect(await mailTo(unknownEmail)).toEqual([]);
  });

  it("an expired link, an unknown token and a short password are refused, and the password stays", async () => {
    const person = await signUp();
    expect((await requestReset(person.email)).status).toBe(200);
    const token = tokenOf(linkIn(await resetMail(person.email)));
    expect((await resetPassword("not-a-token-at-all-000000", "long-enough-password")).status).toBe(400);
    expect((await resetPassword(token, "short")).status).toBe(400);
    await query(`update verifications set expires_at = now() - interval '1 second' where identifier = $1`, [`reset-password:${token}`]);
    expect((await resetPassword(token, "long-enough-password")).status).toBe(400);
    expect((await signIn(person.email, "long-enough-password")).status).toBe(401);
    expect((await signIn(person.email, person.password)).status).toBe(200);
    expect((await asPerson(person.cookie, "/v1/settings/session")).status).toBe(200);
  });

  it("the link expires an hour after it was asked for", async () => {
    const person = await signUp();
    expect((await requestReset(person.email)).status).toBe(200);
    const token = tokenOf(linkIn(await resetMail(person.email)));
    const [row] = await pollUntil(
      () =>
        query<{ seconds: number }>(
          `select extract(epoch from expires_at - created_at)::int as seconds from verifications where identifier = $1`,
          [`reset-password:${token}`],
        ),
      (rows) => rows.length === 1,
    );
    expect(row!.seconds).toBe(3600);
  });

  it("asking without an address is refused", async () => {
    expect((await authPost("/auth/request-password-reset", {})).status).toBe(400);
  });
});
