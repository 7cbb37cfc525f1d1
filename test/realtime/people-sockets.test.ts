import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { asPerson, authPost, fixturesOf, memberOf, signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { taskBody } from "../helpers/resources.ts";
import { refusedStatus, socketWith } from "../helpers/sockets.ts";

// Sockets of people, and of the keys they manage, close when what opened them ends: a key revoked
// in the settings area, a session signed out, a member removed or given another role (they
// reconnect with the scopes of the new role). Each closes with 4401 and a reason, while another
// person's socket in the same room stays open.

const CLOSED = 4401;

useRoom();

async function personSocket(person: Person, options: { closeTimeout?: number } = {}) {
  const token = expectSuccess(await asPerson(person.cookie, "/v1/realtime/tokens", { body: {} }), 201).data.token as string;
  const socket = socketWith(person.orgId, { token }, options);
  await socket.ready;
  return socket;
}

describe("people's sockets", () => {
  it("a key revoked in the settings area: its socket closes with 4401; the owner's stays", async () => {
    const owner = await signUp();
    const created = expectSuccess(
      await asPerson(owner.cookie, "/v1/settings/api-keys", { body: { name: "Sync", scopes: ["tasks.read"] } }),
      201,
    ).data;
    const keySocket = socketWith(owner.orgId, { apiKey: created.key });
    await keySocket.ready;
    const ownerSocket = await personSocket(owner);
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/api-keys/${created.id}/revoke`, { method: "POST" }));
    const close = await keySocket.closed;
    expect(close.code).toBe(CLOSED);
    expect(close.reason).toMatch(/revoked/);
    expect((await api("/v1", { key: created.key })).status).toBe(401);
    await ownerSocket.pong();
  });

  it("sign-out closes the session's sockets; its tokens open no more; another session stays", async () => {
    const owner = await signUp();
    const other = await memberOf(owner, "admin");
    const socket = await personSocket(owner);
    const token = expectSuccess(await asPerson(owner.cookie, "/v1/realtime/tokens", { body: {} }), 201).data.token as string;
    const otherSocket = await personSocket(other);
    const signedOut = await authPost("/auth/sign-out", {}, { cookie: owner.cookie });
    expect(signedOut.status).toBe(200);
    const close = await socket.closed;
    expect(close.code).toBe(CLOSED);
    expect(close.reason).toMatch(/session/);
    expect(await refusedStatus(owner.orgId, token)).toBe(401);
    await otherSocket.pong();
  });

  it("a member removed: their sockets close, their tokens open none; a role changed: they reconnect with the new role's scopes", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const member = await memberOf(owner, "member");
    const adminSocket = await personSocket(admin);
    const memberSocket = await personSocket(member);
    const memberToken = expectSuccess(await asPerson(member.cookie, "/v1/realtime/tokens", { body: {} }), 201).data.token as string;

    expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${member.userId}`, { method: "DELETE" }));
    expect((await memberSocket.closed).code).toBe(CLOSED);
    expect(await refusedStatus(owner.orgId, memberToken)).not.toBe(101);

    expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${admin.userId}`, { method: "PATCH", body: { role: "member" } }));
    expect((await adminSocket.closed).code).toBe(CLOSED);
    const again = expectSuccess(await asPerson(admin.cookie, "/v1/realtime/tokens", { body: {} }), 201).data;
    expect(again.scopes).not.toContain("financials.read");
    expect(again.scopes).toContain("tasks.read");
  });

  it("a demoted admin's socket while the room is busy (issue 31's probe): the 4401 close frame at once and nothing after it; a client closing as browsers do reports it within seconds", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const org = fixturesOf(owner.orgId);
    const [frameSocket, browserLike, ownerSocket] = [
      await personSocket(admin),
      await personSocket(admin, { closeTimeout: 2_000 }),
      await personSocket(owner),
    ];
    // Writes keep the room busy throughout: the runtime then never ends a closed socket's connection itself.
    let busy = true;
    const writes = (async () => {
      while (busy) expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(org) }), 201);
    })();
    try {
      const demotedAt = performance.now();
      expectSuccess(await asPerson(owner.cookie, `/v1/settings/members/${admin.userId}`, { method: "PATCH", body: { role: "member" } }));
      const close = await frameSocket.closed;
      expect(close.code).toBe(CLOSED);
      expect(close.reason).toMatch(/membership changed/);
      expect(frameSocket.closingAt()! - demotedAt, "the close frame arrives at once").toBeLessThan(1_000);
      const browserClose = await browserLike.closed;
      expect(browserClose.code).toBe(CLOSED);
      expect(performance.now() - browserLike.closingAt()!, "reported within the client's own wait after the handshake").toBeLessThan(5_000);
      // A later write reaches the owner's socket; the demoted sockets got nothing after their close frame.
      const sentinel = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(org) }), 201).data;
      await expect.poll(() => ownerSocket.messages.some((m) => m.includes(sentinel.id)), { timeout: 10_000 }).toBe(true);
      for (const socket of [frameSocket, browserLike]) expect(socket.messages.some((m) => m.includes(sentinel.id))).toBe(false);
    } finally {
      busy = false;
      await writes;
    }
  }, 60_000);
});
