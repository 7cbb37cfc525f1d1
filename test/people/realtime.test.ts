import { describe, expect, it } from "vitest";
import { expectSuccess } from "../helpers/api.ts";
import { asPerson, authPost, fixturesOf, memberOf, signedIn, signUp, type Person } from "../helpers/people.ts";
import { connectToRoom, upgradeStatus, useRoom } from "../helpers/realtime.ts";
import { taskBody } from "../helpers/resources.ts";

// A session mints realtime tokens (POST /v1/realtime/tokens) naming the session; the room asks the
// Worker whether that session is still signed in and a member before it opens a socket, so a
// token stops opening sockets once its person is removed or signs out.

useRoom();

async function mint(person: Person, body: Record<string, unknown> = {}) {
  return expectSuccess(await asPerson(person.cookie, "/v1/realtime/tokens", { body }), 201).data as {
    token: string;
    organisation: string;
    scopes: string[];
  };
}

describe("a session's realtime token", () => {
  it("opens a socket to the organisation's room with the role's read scopes, and receives its events", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const minted = await mint(member);
    expect(minted.organisation).toBe(owner.orgId);
    expect(minted.scopes).not.toContain("financials.read");
    expect(minted.scopes).toContain("tasks.read");
    const room = await connectToRoom(owner.orgId, { token: minted.token });
    const task = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(fixturesOf(owner.orgId)) }), 201).data;
    // The member's person, made as they joined, goes to the room right after the join's answer
    // (issue 46): before this socket opened, or while it did, and then it came first.
    const events = await room.waitFor((list) => list.some((e) => e.type === "task.created"));
    const created = events.findIndex((e) => e.type === "task.created");
    expect(events[created]).toMatchObject({ type: "task.created", data: { id: task.id }, actor: { type: "user", id: owner.userId } });
    for (const earlier of events.slice(0, created))
      expect(earlier).toMatchObject({ type: "personnel.created", data: { userId: member.userId } });
    expect(events.slice(created + 1)).toEqual([]);
  });

  it("a member's token cannot ask for financials.read: 403 insufficient_scope", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const refused = await asPerson(member.cookie, "/v1/realtime/tokens", { body: { scopes: ["financials.read"] } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "insufficient_scope", scope: "financials.read" });
    expect((await mint(owner, { scopes: ["financials.read"] })).scopes).toEqual(["financials.read"]);
  });

  it("is refused (401) once its person is removed from the organisation", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const { token } = await mint(member);
    expect((await upgradeStatus(owner.orgId, { token })).status).toBe(101);
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${member.userId}`, { method: "DELETE" }));
    expect((await upgradeStatus(owner.orgId, { token })).status).toBe(401);
  });

  it("is refused (401) once its session signs out; a token of the person's other session still opens", async () => {
    const owner = await signUp();
    const other = await signedIn(owner);
    const [{ token }, second] = [await mint(owner), await mint(other)];
    expect((await upgradeStatus(owner.orgId, { token })).status).toBe(101);
    expect((await authPost("/auth/sign-out", {}, { cookie: owner.cookie })).status).toBe(200);
    expect((await upgradeStatus(owner.orgId, { token })).status).toBe(401);
    expect((await upgradeStatus(owner.orgId, { token: second.token })).status).toBe(101);
  });

  it("is refused for another organisation's room (404, as another organisation's ids are)", async () => {
    const [owner, stranger] = [await signUp(), await signUp()];
    const { token } = await mint(owner);
    expect((await upgradeStatus(stranger.orgId, { token })).status).toBe(404);
  });
});
