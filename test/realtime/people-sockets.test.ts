import { WebSocket } from "ws";
import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { asPerson, authPost, memberOf, signUp, type Person } from "../helpers/people.ts";
import { realtimeHost, useRoom } from "../helpers/realtime.ts";

// Sockets of people, and of the keys they manage, close when what opened them ends: a key revoked
// in the settings area, a session signed out, a member removed or given another role (they
// reconnect with the scopes of the new role). Each closes with 4401 and a reason, while another
// person's socket in the same room stays open.

const CLOSED = 4401;

useRoom();

interface Socket {
  ready: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  /** Answers "ping" with the room's "pong" on this connection: it is open, and was sent no close frame before it. */
  pong(): Promise<void>;
}

function socketWith(orgId: string, params: Record<string, string>): Socket {
  const ws = new WebSocket(`ws://${realtimeHost()}/parties/v1/${orgId}?${new URLSearchParams(params)}`);
  const ready = new Promise<void>((resolve, reject) => {
    ws.on("message", (data) => {
      if (String(data) !== "pong" && (JSON.parse(String(data)) as { type?: string }).type === "ready") resolve();
    });
    ws.once("unexpected-response", (_request, response) => reject(new Error(`refused: ${response.statusCode}`)));
    ws.once("error", reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })));
  // The socket turns CLOSING when the room's close frame (code and reason) arrives; `partykit dev`
  // then holds the TCP connection about 10 s. Ending it at once still reports the frame's code.
  const poll = setInterval(() => {
    if (ws.readyState !== WebSocket.CLOSING) return;
    clearInterval(poll);
    ws.terminate();
  }, 5);
  void closed.then(() => clearInterval(poll));
  const pong = () =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (data: unknown) => {
        if (String(data) !== "pong") return;
        ws.off("message", onMessage);
        resolve();
      };
      ws.on("message", onMessage);
      ws.once("close", () => reject(new Error("closed instead of answering pong")));
      ws.send("ping");
    });
  return { ready, closed, pong };
}

async function personSocket(person: Person): Promise<Socket> {
  const token = expectSuccess(await asPerson(person.cookie, "/v1/realtime/tokens", { body: {} }), 201).data.token as string;
  const socket = socketWith(person.orgId, { token });
  await socket.ready;
  return socket;
}

/** A token request for a socket that must be refused, answered with the HTTP status of the upgrade. */
async function refusedStatus(orgId: string, token: string): Promise<number> {
  const socket = socketWith(orgId, { token });
  return socket.ready.then(
    () => 101,
    (error: Error) => Number(/refused: (\d+)/.exec(error.message)?.[1] ?? 0),
  );
}

describe("people's sockets", () => {
  it("a key revoked in the settings area: its socket closes with 4401; the owner's stays", async () => {
    const owner = await signUp();
    const created = expectSuccess(await asPerson(owner.cookie, "/v1/settings/api-keys", { body: { name: "Sync", scopes: ["tasks.read"] } }), 201).data;
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
});
