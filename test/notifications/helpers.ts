import { expect } from "vitest";
import { expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { mailTo, outboxFor } from "../helpers/mail.ts";
import { asPerson, fixturesOf, memberOf, signUp, type Person } from "../helpers/people.ts";
import { connectToRoom, type RoomSocket } from "../helpers/realtime.ts";
import { taskBody } from "../helpers/resources.ts";
import { pollUntil, waitUntil } from "../helpers/wait.ts";

// An organisation with an owner and a member linked to a personnel record (as an accepted
// invitation links one), and the calls the notification tests make as either.

export interface Team {
  owner: Person;
  member: Person;
  /** The member's personnel record: assigning a task to it notifies the member. */
  memberPersonnelId: string;
  ownerPersonnelId: string;
}

export async function team(): Promise<Team> {
  const owner = await signUp({ name: "Olive Owner" });
  const member = await memberOf(owner, "member");
  const members = expectSuccess(await asPerson(owner.cookie, "/v1/settings/members")).data as Array<{
    userId: string;
    personnelId: string | null;
  }>;
  const memberPersonnelId = members.find((m) => m.userId === member.userId)!.personnelId!;
  const own = await fixturesOf(owner.orgId).insertPerson({ name: owner.name });
  const linked = await asPerson(owner.cookie, `/v1/settings/members/${owner.userId}/personnel`, {
    method: "PUT",
    body: { personnelId: own.id },
  });
  expect(linked.status, linked.text).toBe(200);
  return { owner, member, memberPersonnelId, ownerPersonnelId: own.id };
}

/** A task made through the API by `by`, assigned to `assigneeId`. */
export async function taskBy(by: Person, assigneeId: string, fields: Record<string, unknown> = {}) {
  const body = await taskBody(fixturesOf(by.orgId), { assigneeId, ...fields });
  return expectSuccess(await asPerson(by.cookie, "/v1/tasks", { body }), 201).data as { id: string; title: string; version: number };
}

export const inbox = async (person: Person, query = "") =>
  expectSuccess(await asPerson(person.cookie, `/v1/notifications${query}`)) as unknown as {
    data: Array<{
      id: string;
      kind: string;
      read: boolean;
      record: { id: string; title: string };
      actor: { id: string };
      excerpt: string | null;
    }>;
    unread: number;
    nextCursor: string | null;
  };

/** The person's socket to their organisation's room, opened with a realtime token of their session. */
export async function personSocket(person: Person): Promise<RoomSocket & { notifications(): any[] }> {
  const minted = expectSuccess(await asPerson(person.cookie, "/v1/realtime/tokens", { body: {} }), 201).data as { token: string };
  const socket = await connectToRoom(person.orgId, { token: minted.token });
  const notifications = () =>
    socket.messages
      .map((m) => m.message as any)
      .filter((m) => m.type === "notification")
      .map((m) => m.notification);
  return Object.assign(socket, { notifications });
}

/** Waits (10 s) for the socket's `count`-th notification. */
export async function nextNotification(socket: { notifications(): any[]; socket: RoomSocket["socket"] }, count = 1) {
  const listeners = new Set<() => void>();
  socket.socket.addEventListener("message", () => listeners.forEach((l) => l()));
  const seen = await waitUntil(
    listeners,
    socket.notifications,
    (n) => n.length >= count,
    10_000,
    (n) => `notifications ${JSON.stringify(n)}`,
  );
  return seen[count - 1];
}

/** The notification mails to an address (those with a List-Unsubscribe header: not the invitation's nor the address's). */
export const notificationMailsTo = async (email: string) => (await mailTo(email)).filter((m) => m.headers["list-unsubscribe"]);

/** Waits (10 s) for the `count`-th notification mail to an address. */
export async function nextNotificationMail(email: string, count = 1) {
  const mails = await pollUntil(
    () => notificationMailsTo(email),
    (m) => m.length >= count,
    10_000,
  );
  return mails[count - 1]!;
}

/** The outbox's notification and digest rows for an address. */
export const notificationOutbox = async (email: string) =>
  (await outboxFor(email)).filter((r) => r.kind === "notification" || r.kind === "digest");

/** The notifications, follows and preferences of the organisations' people: what the notification routes write. */
export const notificationTrace = (orgIds: string[]) =>
  Promise.all([
    query("select id, read_at from notifications where org_id = any($1::uuid[]) order by id", [orgIds]),
    query("select * from subscriptions where org_id = any($1::uuid[]) order by record_id, user_id", [orgIds]),
    query(
      `select * from notification_settings where user_id in (select user_id from memberships where org_id = any($1::uuid[])) order by user_id`,
      [orgIds],
    ),
  ]);
