import { describe, expect, it } from "vitest";
import { expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { mailDelivered, refuseMailTo, sweepMailTo } from "../helpers/mail.ts";
import { asPerson } from "../helpers/people.ts";
import { roundTrip, runSweep, useRoom } from "../helpers/realtime.ts";
import { pollUntil } from "../helpers/wait.ts";
import {
  inbox,
  nextNotification,
  nextNotificationMail,
  notificationMailsTo as mailTo,
  notificationOutbox as outboxFor,
  personSocket,
  taskBy,
  team,
} from "./helpers.ts";

// Notifications through the real stack (docs/notifications.md): a write's events become
// notifications of the people who follow its record, live on their socket, in GET
// /v1/notifications, and by mail through the outbox to the harness's SMTP server.

useRoom();

describe("assigning a task to a member linked to a personnel record", () => {
  it("notifies them live, in their inbox and by one mail within 10 s; the actor is not notified", async () => {
    const { owner, member, memberPersonnelId } = await team();
    const socket = await personSocket(member);
    const ownerSocket = await personSocket(owner);
    const task = await taskBy(owner, memberPersonnelId);

    const live = await nextNotification(socket);
    expect(live).toMatchObject({
      kind: "assigned",
      record: { type: "task", id: task.id, title: task.title },
      actor: { type: "user", id: owner.userId },
      read: false,
    });
    const listed = await inbox(member);
    expect(listed.data).toEqual([live]);
    expect(listed.unread).toBe(1);

    const mail = await nextNotificationMail(member.email);
    expect(mail.subject).toBe(`Olive Owner assigned you the task "${task.title}"`);
    expect(mail.text).toContain(task.title);
    expect(mail.html).toContain(task.id);
    expect(mail.headers["list-unsubscribe"]).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/unsubscribe\?token=[^>]+>$/);
    expect(mail.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
    await pollUntil(
      () => outboxFor(member.email),
      (rows) => rows[0]?.status === "sent",
    );
    expect(await outboxFor(member.email)).toEqual([expect.objectContaining({ kind: "notification", status: "sent", attempts: 1 })]);

    // The owner made the task (and follows it as its creator): nothing for them, on the socket or in the inbox.
    await roundTrip(ownerSocket);
    expect(ownerSocket.notifications()).toEqual([]);
    expect((await inbox(owner)).data).toEqual([]);
    expect(await mailTo(owner.email)).toEqual([]);
  });

  it("mark read: one, then all; unread first, cursor paged", async () => {
    const { owner, member, memberPersonnelId } = await team();
    const tasks = [await taskBy(owner, memberPersonnelId), await taskBy(owner, memberPersonnelId), await taskBy(owner, memberPersonnelId)];
    const all = await pollUntil(
      () => inbox(member),
      (page) => page.data.length === 3,
    );
    expect(all.data.map((n) => n.record.id)).toEqual([...tasks].reverse().map((t) => t.id));
    const oldest = all.data[2]!;
    const read = expectSuccess(await asPerson(member.cookie, `/v1/notifications/${oldest.id}/read`, { method: "POST" })).data;
    expect(read).toMatchObject({ id: oldest.id, read: true });
    const first = await inbox(member, "?limit=2");
    expect(first.unread).toBe(2);
    expect(first.data.map((n) => n.read)).toEqual([false, false]);
    const second = await inbox(member, `?limit=2&cursor=${first.nextCursor}`);
    expect(second.data.map((n) => n.id)).toEqual([oldest.id]);
    expect(second.nextCursor).toBeNull();
    // Another person's notification is not theirs to mark: 404, as an unknown one.
    const refused = await asPerson(owner.cookie, `/v1/notifications/${oldest.id}/read`, { method: "POST" });
    expect(refused.status).toBe(404);
    const marked = expectSuccess(await asPerson(member.cookie, "/v1/notifications/read", { method: "POST" })).data;
    expect(marked).toEqual({ marked: 2 });
    expect((await inbox(member)).unread).toBe(0);
    expect((await inbox(member, "?unread=true")).data).toEqual([]);
  });
});

describe("an @mention in a comment", () => {
  it("notifies the person mentioned live, in the inbox and by mail; the commenter is not notified", async () => {
    const { owner, member, ownerPersonnelId } = await team();
    const task = await taskBy(owner, ownerPersonnelId);
    const ownerSocket = await personSocket(owner);
    const memberSocket = await personSocket(member);
    const body = `Can you check the drawings, @[Olive](user:${owner.userId})?`;
    const comment = await asPerson(member.cookie, `/v1/tasks/${task.id}/comments`, { body: { body } });
    expect(comment.status, comment.text).toBe(201);

    const live = await nextNotification(ownerSocket);
    expect(live).toMatchObject({
      kind: "mentioned",
      record: { id: task.id },
      excerpt: "Can you check the drawings, @Olive?",
      actor: { id: member.userId },
    });
    expect((await inbox(owner)).data).toEqual([live]);
    const mail = await nextNotificationMail(owner.email);
    expect(mail.subject).toBe(`member person mentioned you on the task "${task.title}"`);
    expect(mail.text).toContain("Can you check the drawings, @Olive?");

    await roundTrip(memberSocket);
    expect(memberSocket.notifications()).toEqual([]);
    expect((await inbox(member)).data).toEqual([]);
    // The commenter follows the task now: the owner's next comment tells them (in the digest: no mail at once).
    await asPerson(owner.cookie, `/v1/tasks/${task.id}/comments`, { body: { body: "Done." } });
    expect(await nextNotification(memberSocket)).toMatchObject({ kind: "commented", excerpt: "Done." });
  });
});

describe("the daily digest", () => {
  it("collects the notifications waiting for it into one mail, after the person's local morning", async () => {
    const { owner, member, memberPersonnelId } = await team();
    const socket = await personSocket(member);
    const task = await taskBy(owner, memberPersonnelId, { priority: "low" });
    await nextNotification(socket);
    for (const [n, priority] of [
      [2, "high"],
      [3, "urgent"],
    ] as const) {
      const patched = await asPerson(owner.cookie, `/v1/tasks/${task.id}`, { method: "PATCH", body: { priority } });
      expect(patched.status, patched.text).toBe(200);
      expect(await nextNotification(socket, n)).toMatchObject({ kind: "changed" });
    }
    const waiting = await query<{ mail_state: string }>(`select mail_state from notifications where user_id = $1 and kind = 'changed'`, [
      member.userId,
    ]);
    expect(waiting.map((r) => r.mail_state)).toEqual(["digest", "digest"]);
    // Made yesterday: this morning's digest is due (whatever the hour, the last local 08:00 is after them).
    await query(`update notifications set created_at = created_at - interval '1 day' where user_id = $1`, [member.userId]);
    await runSweep();
    const [, digest] = await pollUntil(
      () => mailTo(member.email),
      (mails) => mails.length === 2,
      10_000,
    );
    expect(digest!.subject).toBe("opsroom: 2 notifications since your last digest");
    expect(digest!.text.match(/changed priority/g)).toHaveLength(2);
    expect(digest!.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
    // Taken once: a second sweep sends no second digest.
    await runSweep();
    expect((await mailTo(member.email)).length).toBe(2);
    expect((await outboxFor(member.email)).map((r) => r.kind)).toEqual(["notification", "digest"]);
  });
});

describe("unsubscribing from a notification mail", () => {
  it("GET shows a confirmation and changes nothing; the one-click POST turns that kind's mail off", async () => {
    const { owner, member, memberPersonnelId } = await team();
    await taskBy(owner, memberPersonnelId);
    const mail = await nextNotificationMail(member.email);
    const link = /^<(.+)>$/.exec(mail.headers["list-unsubscribe"]!)![1]!;

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post"');
    const settings = async () => expectSuccess(await asPerson(member.cookie, "/v1/settings/notifications")).data;
    expect((await settings()).preferences.assigned).toEqual({ email: "immediate", inApp: true });

    const forged = await fetch(
      link.replace(/.$/, (c) => (c === "0" ? "1" : "0")),
      { method: "POST", body: "List-Unsubscribe=One-Click" },
    );
    expect(forged.status).toBe(400);
    const oneClick = await fetch(link, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    expect((await settings()).preferences).toMatchObject({ assigned: { email: "none", inApp: true }, mentioned: { email: "immediate" } });

    // The next assignment is in the inbox, and no mail comes of it.
    const next = await taskBy(owner, memberPersonnelId);
    await pollUntil(
      () => inbox(member),
      (page) => page.data.some((n) => n.record.id === next.id),
    );
    await runSweep();
    expect((await mailTo(member.email)).length).toBe(1);
  });
});

describe("a transport that refuses a notification mail", () => {
  it("leaves it queued and retried; it arrives once, and the call that caused it is unaffected", async () => {
    const { owner, member, memberPersonnelId } = await team();
    // The member's invitation and address confirmation went after their answers: the one refusal is for the notification.
    await mailDelivered(member.email, ["invitation", "email_verification"]);
    await refuseMailTo(member.email, 550, 1);
    await taskBy(owner, memberPersonnelId);
    const [first] = await pollUntil(
      () => outboxFor(member.email),
      (rows) => rows[0]?.attempts === 1 && rows[0]?.status === "queued",
    );
    expect(first!.last_error).toMatch(/550/);
    await sweepMailTo(member.email);
    await nextNotificationMail(member.email);
    await sweepMailTo(member.email);
    expect((await mailTo(member.email)).length).toBe(1);
    expect(await outboxFor(member.email)).toEqual([expect.objectContaining({ status: "sent", attempts: 2 })]);
  });
});
