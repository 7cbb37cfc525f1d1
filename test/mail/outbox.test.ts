import { describe, expect, it } from "vitest";
import { workerUrl } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { linkIn, mailTo, nextMailTo, outboxFor, refuseMailTo, sweepMailTo } from "../helpers/mail.ts";
import { asPerson, membershipsOf, newEmail, signUp, tokenOfLink } from "../helpers/people.ts";
import { pollUntil } from "../helpers/wait.ts";

// Mail through the outbox (docs/mail.md), to the harness's real SMTP server: an invitation's mail
// is queued by the statement that makes the invitation, sent right after the answer, its link on
// the public origin; a server that refuses leaves it queued, retried by the sweep, sent once.

describe("an invitation's mail", () => {
  it("arrives within 10 s, text and HTML, with the link the admin is shown; the link joins the organisation", async () => {
    const owner = await signUp();
    const email = newEmail("invited");
    const created = await asPerson(owner.cookie, "/v1/settings/invitations", { body: { email, role: "member" } });
    expect(created.status, created.text).toBe(201);
    const mail = await nextMailTo(email);
    await pollUntil(
      () => outboxFor(email),
      (r) => r[0]?.status === "sent",
    );
    expect(mail.subject).toBe("You are invited to an organisation on opsroom");
    expect(linkIn(mail)).toBe(created.body.data.url);
    expect(mail.html).toContain(`href="${created.body.data.url}"`);
    expect(mail.headers["message-id"]).toMatch(/^<[0-9a-f-]{36}@127\.0\.0\.1>$/);
    expect(await outboxFor(email)).toEqual([
      expect.objectContaining({ kind: "invitation", status: "sent", attempts: 1, last_error: null }),
    ]);

    const member = await signUp({ email, invitation: tokenOfLink(linkIn(mail)) });
    expect(await membershipsOf(member.userId)).toEqual([{ org_id: owner.orgId, role: "member" }]);
  });

  it("its link is on the public origin whatever Host the request named", async () => {
    const owner = await signUp();
    const email = newEmail("host");
    const created = await asPerson(owner.cookie, "/v1/settings/invitations", {
      body: { email, role: "member" },
      headers: { host: "evil.example", "x-forwarded-host": "evil.example" },
    });
    // A request naming another Host may be refused before it gets here; either way no link names it.
    if (created.status === 201) expect(created.body.data.url.startsWith(`${workerUrl()}/invite#`)).toBe(true);
    for (const mail of await mailTo(email)) expect(linkIn(mail).startsWith(`${workerUrl()}/invite#`)).toBe(true);
  });

  it("a refused invitation queues no mail", async () => {
    const owner = await signUp();
    const email = newEmail("twice");
    expect((await asPerson(owner.cookie, "/v1/settings/invitations", { body: { email, role: "member" } })).status).toBe(201);
    const second = await asPerson(owner.cookie, "/v1/settings/invitations", { body: { email, role: "member" } });
    expect(second.status).toBe(409);
    await nextMailTo(email);
    expect((await outboxFor(email)).length).toBe(1);
  });
});

describe("a transport that refuses", () => {
  it("SMTP 5xx: the call succeeds, the message stays queued with the error, the sweep retries it and it arrives once", async () => {
    const owner = await signUp();
    const email = newEmail("refused");
    await refuseMailTo(email, 550, 2);
    const created = await asPerson(owner.cookie, "/v1/settings/invitations", { body: { email, role: "member" } });
    expect(created.status, created.text).toBe(201);
    const [first] = await pollUntil(
      () => outboxFor(email),
      (rows) => rows[0]?.attempts === 1 && rows[0]?.status === "queued",
    );
    expect(first!.last_error).toMatch(/550/);
    // Not due yet: the sweep leaves it waiting out its backoff.
    const [waiting] = await query<{ due: boolean }>(`select next_attempt_at > now() as due from mail_outbox where id = $1`, [first!.id]);
    expect(waiting!.due).toBe(true);

    await sweepMailTo(email);
    await pollUntil(
      () => outboxFor(email),
      (rows) => rows[0]?.attempts === 2 && rows[0]?.status === "queued",
    );
    expect(await mailTo(email)).toEqual([]);
    await sweepMailTo(email);
    const mail = await nextMailTo(email);
    expect(linkIn(mail)).toBe(created.body.data.url);
    // The server has it before the Worker records it sent.
    const rows = await pollUntil(
      () => outboxFor(email),
      (r) => r[0]?.status === "sent",
    );
    expect(rows).toEqual([expect.objectContaining({ status: "sent", attempts: 3, last_error: null })]);
    // Sent is sent: another sweep sends nothing more.
    await sweepMailTo(email);
    expect((await mailTo(email)).length).toBe(1);
  });

  it("a security mail's refusal is in the audit log of its organisation", async () => {
    const owner = await signUp();
    const email = newEmail("audited");
    await refuseMailTo(email, 554, 1);
    expect((await asPerson(owner.cookie, "/v1/settings/invitations", { body: { email, role: "member" } })).status).toBe(201);
    const entries = await pollUntil(
      () =>
        query<{ action: string; target: { type: string; name: string }; changes: any }>(
          `select action, target, changes from audit_entries where org_id = $1 and action = 'mail.failed'`,
          [owner.orgId],
        ),
      (rows) => rows.length === 1,
    );
    expect(entries[0]!.target).toMatchObject({ type: "mail", name: email });
    expect(entries[0]!.changes.status).toEqual({ from: "sending", to: "queued" });
    expect(entries[0]!.changes.error.to).toMatch(/554/);
  });
});
