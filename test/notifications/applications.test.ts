import { describe, expect, it } from "vitest";
import { registerApp, tokensFor } from "../apps/helpers.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { roundTrip, useRoom } from "../helpers/realtime.ts";
import { inbox, nextNotification, personSocket, taskBy, team } from "./helpers.ts";

// An OAuth application acting for a person (an authorization-code token) makes changes as that
// person (docs/notifications.md "What they are told"): the record's other followers are told, the
// person it acts for never is, as if they had made the change themselves.

useRoom();

describe("a change by an application acting for a person", () => {
  it("notifies the record's other followers, live and in their inbox, naming the application for the person; never that person", async () => {
    const { owner, member, memberPersonnelId } = await team();
    // The owner creates it (following as creator); the member follows as its assignee.
    const task = await taskBy(owner, memberPersonnelId);
    const app = await registerApp(owner);
    const { access_token } = await tokensFor(app, member);
    const memberSocket = await personSocket(member);
    const ownerSocket = await personSocket(owner);
    const memberInbox = (await inbox(member)).data;
    expect(memberInbox.map((n) => n.kind)).toEqual(["assigned"]);

    const changed = await api(`/v1/tasks/${task.id}`, { method: "PATCH", key: access_token, body: { title: "Renamed by the planner" } });
    expect(expectSuccess(changed).data.title).toBe("Renamed by the planner");

    const live = await nextNotification(ownerSocket);
    expect(live).toMatchObject({
      kind: "changed",
      record: { type: "task", id: task.id, title: "Renamed by the planner" },
      actor: { type: "app", id: app.id, onBehalfOf: { type: "user", id: member.userId } },
      read: false,
    });
    expect((await inbox(owner)).data).toEqual([live]);

    // The member it acted for follows the task too, and is told nothing of their own change.
    await roundTrip(memberSocket);
    expect(memberSocket.notifications()).toEqual([]);
    expect((await inbox(member)).data).toEqual(memberInbox);
  });
});
