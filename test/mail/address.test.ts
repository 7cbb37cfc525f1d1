import { describe, expect, it } from "vitest";
import { workerUrl } from "../helpers/api.ts";
import { auditRows, expectOneEntry } from "../helpers/audit.ts";
import { query } from "../helpers/database.ts";
import { linkIn, mailTo, nextMailTo, outboxFor } from "../helpers/mail.ts";
import { authPost, newEmail, signIn, signUp } from "../helpers/people.ts";

// An address confirmed by a mailed link (docs/people.md): at sign-up, and before an address change
// takes effect (the link goes to the new address), which the audit log records. A tampered link
// confirms nothing.

const verifiedOf = async (userId: string) =>
  (await query<{ email: string; email_verified: boolean }>(`select email, email_verified from users where id = $1`, [userId]))[0]!;
const follow = (link: string) => fetch(link, { redirect: "manual" });

describe("confirming an address", () => {
  it("sign-up mails a link on the public origin; following it confirms the address", async () => {
    const person = await signUp();
    const mail = await nextMailTo(person.email);
    expect(mail.subject).toBe("Confirm your opsroom address");
    const link = linkIn(mail);
    expect(link.startsWith(`${workerUrl()}/auth/verify-email?token=`)).toBe(true);
    expect((await verifiedOf(person.userId)).email_verified).toBe(false);
    const followed = await follow(link);
    expect(followed.status).toBe(302);
    expect(new URL(followed.headers.get("location")!, workerUrl()).search).not.toContain("error");
    expect((await verifiedOf(person.userId)).email_verified).toBe(true);
  });

  it("a tampered link is refused and confirms nothing", async () => {
    const person = await signUp();
    const link = new URL(linkIn(await nextMailTo(person.email)));
    const token = link.searchParams.get("token")!;
    link.searchParams.set("token", `${token.slice(0, -2)}${token.endsWith("A") ? "BB" : "AA"}`);
    const followed = await follow(link.href);
    expect(followed.status).toBe(302);
    expect(followed.headers.get("location")).toContain("error=INVALID_TOKEN");
    expect((await verifiedOf(person.userId)).email_verified).toBe(false);
  });

  it("another link can be asked for, answered alike for an address no one has", async () => {
    const person = await signUp();
    const known = await authPost("/auth/send-verification-email", { email: person.email });
    const unknown = await authPost("/auth/send-verification-email", { email: newEmail("nobody") });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(known.status);
    expect(await unknown.json()).toEqual(await known.json());
    await nextMailTo(person.email, 2);
    expect((await outboxFor(person.email)).map((m) => m.kind)).toEqual(["email_verification", "email_verification"]);
  });
});

describe("changing an address", () => {
  it("takes effect only once the link mailed to the new address is followed, and is audited then", async () => {
    const person = await signUp();
    const newAddress = newEmail("moved");
    const asked = await authPost("/auth/change-email", { newEmail: newAddress }, { cookie: person.cookie });
    expect(asked.status, await asked.clone().text()).toBe(200);
    const mail = await nextMailTo(newAddress);
    expect(mail.subject).toBe("Confirm your new opsroom address");
    expect((await verifiedOf(person.userId)).email).toBe(person.email);
    expect((await auditRows(person.orgId)).map((e) => e.action)).not.toContain("user.email_changed");
    const entry = await expectOneEntry(person.orgId, "user.email_changed", async () =>
      expect((await follow(linkIn(mail))).status).toBe(302),
    );
    expect(entry).toMatchObject({
      actor: { type: "user", id: person.userId },
      target: { type: "user", id: person.userId },
      changes: { email: { from: person.email, to: newAddress } },
    });
    expect((await verifiedOf(person.userId)).email).toBe(newAddress);
    // The link works once: followed again, it changes and records nothing.
    const again = await auditRows(person.orgId);
    await follow(linkIn(mail));
    expect(await auditRows(person.orgId)).toEqual(again);
    expect((await signIn(newAddress, person.password)).status).toBe(200);
    expect((await signIn(person.email, person.password)).status).toBe(401);
  });

  it("to an address someone has: the same answer, no mail, nothing changed; without a session: refused", async () => {
    const person = await signUp();
    const other = await signUp();
    const asked = await authPost("/auth/change-email", { newEmail: other.email }, { cookie: person.cookie });
    expect(asked.status).toBe(200);
    expect((await outboxFor(other.email)).filter((m) => m.kind === "email_change")).toEqual([]);
    expect((await verifiedOf(person.userId)).email).toBe(person.email);
    expect((await auditRows(person.orgId)).map((e) => e.action)).not.toContain("user.email_changed");
    const anonymous = await authPost("/auth/change-email", { newEmail: newEmail("anon") });
    expect(anonymous.status).toBe(401);
    expect((await mailTo(person.email)).map((m) => m.subject)).not.toContain("Confirm your new opsroom address");
  });
});
