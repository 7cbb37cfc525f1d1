import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { expectError, expectSuccess } from "../helpers/api.ts";
import { asPerson, fixturesOf, memberOf, signUp } from "../helpers/people.ts";
import { insertRisk } from "../helpers/project-records.ts";
import { roundTrip, useRoom } from "../helpers/realtime.ts";
import { taskBody } from "../helpers/resources.ts";
import { inbox, nextNotification, personSocket, team } from "./helpers.ts";

// Following a record by hand (docs/notifications.md "Who is told"): GET /v1/<records>/{id}/subscription
// says whether the person follows it and why, PUT follows, DELETE unfollows; what they follow is
// what they are told of. A session's only: keys are refused in test/people/refusals.test.ts.

useRoom();

const subscription = (cookie: string, path: string, method: "GET" | "PUT" | "DELETE" = "GET") =>
  asPerson(cookie, `${path}/subscription`, { method });

describe("GET, PUT and DELETE /v1/<records>/{id}/subscription", () => {
  it("a task, a project and a risk: not followed, followed by hand, unfollowed; the read changes nothing", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const fixtures = fixturesOf(owner.orgId);
    const task = await fixtures.insertTask();
    const project = await fixtures.insertProject();
    const risk = { id: await insertRisk(fixtures) };
    for (const [type, path] of [
      ["task", `/v1/tasks/${task.id}`],
      ["project", `/v1/projects/${project.id}`],
      ["risk", `/v1/risks/${risk.id}`],
    ] as const) {
      const recordId = path.split("/").at(-1);
      const state = async (method?: "PUT" | "DELETE") => expectSuccess(await subscription(member.cookie, path, method)).data;
      expect(await state(), type).toEqual({ recordType: type, recordId, following: false, reason: null });
      // Reading twice makes no row: still not followed, and no one else's state moved.
      expect(await state()).toEqual({ recordType: type, recordId, following: false, reason: null });
      expect(await state("PUT")).toEqual({ recordType: type, recordId, following: true, reason: "manual" });
      expect(await state()).toEqual({ recordType: type, recordId, following: true, reason: "manual" });
      expect(await state("DELETE")).toEqual({ recordType: type, recordId, following: false, reason: "manual" });
      expect(await state()).toEqual({ recordType: type, recordId, following: false, reason: "manual" });
      expect(expectSuccess(await subscription(owner.cookie, path)).data).toEqual({
        recordType: type,
        recordId,
        following: false,
        reason: null,
      });
    }
  });

  it("says why a person follows what they did (the creator); unfollowed, they are told no more of it", async () => {
    const { owner, member, ownerPersonnelId } = await team();
    const other = await memberOf(owner, "member");
    const body = await taskBody(fixturesOf(owner.orgId), { assigneeId: ownerPersonnelId });
    const task = expectSuccess(await asPerson(member.cookie, "/v1/tasks", { body }), 201).data as { id: string };
    const path = `/v1/tasks/${task.id}`;
    // The member made it: the derivation after the answer records them as its creator.
    await expect
      .poll(async () => expectSuccess(await subscription(member.cookie, path)).data, { timeout: 10_000 })
      .toEqual({ recordType: "task", recordId: task.id, following: true, reason: "creator" });

    expect(expectSuccess(await subscription(member.cookie, path, "DELETE")).data).toMatchObject({ following: false, reason: "creator" });
    expect(expectSuccess(await subscription(other.cookie, path, "PUT")).data).toMatchObject({ following: true, reason: "manual" });
    const [memberSocket, otherSocket] = [await personSocket(member), await personSocket(other)];
    expectSuccess(await asPerson(owner.cookie, `${path}/comments`, { body: { body: "The formwork is up." } }), 201);
    // The same derivation tells every follower at once: once the other member has theirs, the member would have had one.
    expect(await nextNotification(otherSocket)).toMatchObject({ kind: "commented", record: { id: task.id } });
    await roundTrip(memberSocket);
    expect(memberSocket.notifications()).toEqual([]);
    expect((await inbox(member)).data).toEqual([]);
    // Commenting does not follow it again: unfollowed stays unfollowed.
    expectSuccess(await asPerson(member.cookie, `${path}/comments`, { body: { body: "Noted." } }), 201);
    expect(await nextNotification(otherSocket, 2)).toMatchObject({ kind: "commented" });
    expect(expectSuccess(await subscription(member.cookie, path)).data).toMatchObject({ following: false });
  });

  it("another organisation's record and an unknown id: 404 not_found, for the read as for the writes", async () => {
    const owner = await signUp();
    const stranger = await signUp();
    const task = await fixturesOf(stranger.orgId).insertTask();
    for (const method of ["GET", "PUT", "DELETE"] as const) {
      expectError(await subscription(owner.cookie, `/v1/tasks/${task.id}`, method), 404, "not_found");
      expectError(await subscription(owner.cookie, `/v1/projects/${randomUUID()}`, method), 404, "not_found");
      expectError(await subscription(owner.cookie, `/v1/risks/not-an-id`, method), 400, "invalid_field");
    }
    expect(expectSuccess(await subscription(stranger.cookie, `/v1/tasks/${task.id}`)).data).toMatchObject({ following: false });
  });
});
