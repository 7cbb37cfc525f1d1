/* eslint-disable max-lines -- the room's promises (ready, scope filtering, ordering, publishes) are tested against one room lease and share their fake events. */
import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { generateApiKey } from "../../domain/crypto/api-keys.ts";
import { signRealtimeToken } from "../../domain/crypto/realtime-token.ts";
import { ERROR_CODES } from "../../domain/errors.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import {
  connectToRoom,
  fakeEvent,
  postToRoom,
  roundTrip,
  upgradeStatus,
  useRoom,
  waitForAcknowledged,
  type RoomEvent,
} from "../helpers/realtime.ts";
import { created, patched, personBody, projectBody, taskBody } from "../helpers/resources.ts";

// The organisation's realtime room (docs/api.md "Realtime") on the real `partykit dev`, with real
// sockets (PartySocket in Node): ready, events as the API wrote them, scope filtering, who may
// connect, ordering under concurrent writes, and what the room does with repeated or
// out-of-order publishes.
//
// "Never sees" is checked against a sentinel, never after a pause: the test makes a later event
// the socket must receive (the room sends a socket its events strictly in changeVersion order),
// waits for it, and only then asserts what came before it. An unwanted message that is merely
// late would have arrived before the sentinel.

useRoom();

const changeVersions = (events: RoomEvent[]) => events.map((e) => e.changeVersion);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** For `socket.waitFor`: the event with this changeVersion has arrived. */
const hasChangeVersion = (changeVersion: number) => (events: RoomEvent[]) => events.some((e) => e.changeVersion === changeVersion);

describe("ready", () => {
  it("a new organisation's room says ready with changeVersion 0", async () => {
    const tenant = await createTenant();
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    expect(socket.readies()).toEqual([0]);
  });

  it("after writes, ready carries the organisation's current changeVersion", async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 3; i++) await created(tenant.key, "/v1/projects", projectBody());
    await waitForAcknowledged(tenant.org.id, 3);
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    expect(socket.readies()).toEqual([3]);
    expect(socket.messages[0]!.message).toEqual({ type: "ready", changeVersion: 3 });
  });

  it("a room that has never seen the organisation asks where it stands before it says ready", async () => {
    // Three changes the room was never told about (all acknowledged long ago, say by a room whose
    // storage is gone): ready must not promise events 1..3 that will never come.
    const tenant = await createTenant();
    await query("update organisations set change_version = 3 where id = $1", [tenant.org.id]);
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    expect(socket.readies()).toEqual([3]);
    await created(tenant.key, "/v1/projects", projectBody());
    expect(changeVersions(await socket.waitForEvents(1))).toEqual([4]);
  });
});

describe("events on the socket", () => {
  it("a PATCH arrives as task.updated with its changeVersion, the record answered and exactly the changes", async () => {
    const tenant = await createTenant();
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { priority: "low" }));
    await waitForAcknowledged(tenant.org.id, 1);
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    expect(socket.readies()).toEqual([1]);

    const response = await patched(tenant.key, `/v1/tasks/${task.id}`, { status: "in_progress", priority: "high" });
    const [event] = await socket.waitForEvents(1);
    expect(event).toEqual({
      id: expect.any(String),
      type: "task.updated",
      orgId: tenant.org.id,
      changeVersion: 2,
      occurredAt: expect.any(String),
      data: response.body.data,
      changes: { status: { from: "todo", to: "in_progress" }, priority: { from: "low", to: "high" } },
      actor: { type: "key", id: expect.any(String), name: expect.any(String) },
      batchId: null,
    });
    // The same event GET /v1/events answers.
    const page = expectSuccess(await api("/v1/events?after=1", { key: tenant.key }));
    expect(page.data).toEqual([event]);
  });

  it("every write type reaches the socket in changeVersion order", async () => {
    const tenant = await createTenant();
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const person = await created(tenant.key, "/v1/personnel", personBody());
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id, assigneeId: person.id }));
    await patched(tenant.key, `/v1/personnel/${person.id}`, { role: "Lead" });
    expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "DELETE" }));
    const events = await socket.waitForEvents(5);
    expect(events.map((e) => [e.type, e.changeVersion])).toEqual([
      ["project.created", 1],
      ["personnel.created", 2],
      ["task.created", 3],
      ["personnel.updated", 4],
      ["task.deleted", 5],
    ]);
  });
});

describe("scope filtering", () => {
  /**
   * One write of each resource (changeVersions 1..6), then the sentinels: one more write each
   * scope may see, project.updated 7 (projects.read), task.updated 8 (tasks.read) and
   * personnel.updated 9 (organisation.read). A socket that has its scope's sentinel has been sent
   * every event of 1..6 it was ever going to be sent.
   */
  async function writeEverything(tenant: Tenant) {
    const project = await created(tenant.key, "/v1/projects", projectBody());
    await created(tenant.key, `/v1/projects/${project.id}/milestones`, { name: "M1", dueDate: "2026-05-01" });
    const person = await created(tenant.key, "/v1/personnel", personBody());
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id, assigneeId: person.id }));
    await patched(tenant.key, `/v1/tasks/${task.id}`, { status: "in_progress" });
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "active" });
    await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 1 });
    await patched(tenant.key, `/v1/tasks/${task.id}`, { priority: "high" });
    await patched(tenant.key, `/v1/personnel/${person.id}`, { role: "Lead" });
  }

  it("a projects.read socket never sees task (or personnel) events; a tasks.read socket never sees project events", async () => {
    const tenant = await createTenant();
    const everything = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    const projects = await connectToRoom(tenant.org.id, { apiKey: (await tenant.keyWith(["projects.read"])).key });
    const tasks = await connectToRoom(tenant.org.id, { apiKey: (await tenant.keyWith(["tasks.manage"])).key });
    const people = await connectToRoom(tenant.org.id, { apiKey: (await tenant.keyWith(["organisation.read"])).key });
    const none = await connectToRoom(tenant.org.id, { apiKey: (await tenant.keyWith(["webhooks.read"])).key });
    await writeEverything(tenant);
    await everything.waitFor(hasChangeVersion(9));
    await projects.waitFor(hasChangeVersion(7));
    await tasks.waitFor(hasChangeVersion(8));
    await people.waitFor(hasChangeVersion(9));
    // No event may reach this socket, so its sentinel is the room's answer to a ping: the room sends
    // an event to all its sockets at once, the all-scopes socket has the last one, and the pong
    // follows on this connection whatever the room sent it before.
    await roundTrip(none);

    expect(everything.events().map((e) => e.type)).toEqual([
      "project.created",
      "milestone.created",
      "personnel.created",
      "task.created",
      "task.updated",
      "project.updated",
      "project.updated",
      "task.updated",
      "personnel.updated",
    ]);
    expect(projects.events().map((e) => [e.type, e.changeVersion])).toEqual([
      ["project.created", 1],
      ["milestone.created", 2],
      ["project.updated", 6],
      ["project.updated", 7],
    ]);
    expect(tasks.events().map((e) => [e.type, e.changeVersion])).toEqual([
      ["task.created", 4],
      ["task.updated", 5],
      ["task.updated", 8],
    ]);
    expect(people.events().map((e) => [e.type, e.changeVersion])).toEqual([
      ["personnel.created", 3],
      ["personnel.updated", 9],
    ]);
    // A key with no readable resource still connects and gets ready, and nothing else.
    expect(none.readies()).toEqual([0]);
    expect(none.events()).toEqual([]);
  });

  it("a token minted by POST /v1/realtime/tokens joins the room and carries only its scopes", async () => {
    const tenant = await createTenant();
    const minted = expectSuccess(await api("/v1/realtime/tokens", { key: tenant.key, body: { scopes: ["tasks.read"] } }), 201).data;
    expect(minted.scopes).toEqual(["tasks.read"]);
    const viaToken = await connectToRoom(tenant.org.id, { token: minted.token });
    expect(viaToken.readies()).toEqual([0]);
    await writeEverything(tenant);
    await viaToken.waitFor(hasChangeVersion(8));
    expect(viaToken.events().map((e) => [e.type, e.changeVersion])).toEqual([
      ["task.created", 4],
      ["task.updated", 5],
      ["task.updated", 8],
    ]);
  });
});

describe("who may connect", () => {
  const status = (tenant: Tenant, params: Record<string, string>, room = tenant.org.id) => upgradeStatus(room, params);

  it("a valid key opens the socket (101)", async () => {
    const tenant = await createTenant();
    expect((await status(tenant, { apiKey: tenant.key })).status).toBe(101);
  });

  const refusals: Array<[string, (tenant: Tenant) => Promise<Record<string, string>>, number]> = [
    ["no credential", async () => ({}), 401],
    ["a malformed key", async () => ({ apiKey: "ops_not-a-key" }), 401],
    ["a well-formed unknown key", async () => ({ apiKey: generateApiKey() }), 401],
    ["a revoked key", async (tenant) => ({ apiKey: (await tenant.revokedKey()).key }), 401],
    ["a garbage token", async () => ({ token: "rt_garbage.signature" }), 401],
    [
      "a token signed with another secret",
      async (tenant) => ({ token: await signRealtimeToken("not-the-secret", claims(tenant, 300)) }),
      401,
    ],
    ["an expired token", async (tenant) => ({ token: await signRealtimeToken(inject("realtimeSecret"), claims(tenant, -5)) }), 401],
  ];
  for (const [label, params, expected] of refusals) {
    it(`${label}: refused with ${expected} before the socket opens`, async () => {
      const tenant = await createTenant();
      const refused = await status(tenant, await params(tenant));
      expect(refused.status, refused.body).toBe(expected);
      // The API's error shape: a code of its closed set, and a request id to quote.
      const body = JSON.parse(refused.body);
      expect(body).toMatchObject({
        success: false,
        version: "v1",
        message: expect.any(String),
        error: { code: expect.any(String), requestId: expect.any(String) },
      });
      expect(ERROR_CODES).toContain(body.error.code);
    });
  }

  it("another organisation's room: 404 with a key, and with a token", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const token = expectSuccess(await api("/v1/realtime/tokens", { key: tenant.key, body: {} }), 201).data.token;
    for (const credential of [{ apiKey: tenant.key }, { token }] as Record<string, string>[]) {
      const refused = await status(tenant, credential, other.org.id);
      expect(refused.status).toBe(404);
      expect(JSON.parse(refused.body).error).toMatchObject({ code: "not_found", requestId: expect.any(String) });
    }
  });

  it("the revoked key of a connected client is refused at its next connection", async () => {
    const tenant = await createTenant();
    const key = await tenant.keyWith(["tasks.read"]);
    expect((await status(tenant, { apiKey: key.key })).status).toBe(101);
    await query("update api_keys set revoked_at = now() where id = $1", [key.id]);
    expect((await status(tenant, { apiKey: key.key })).status).toBe(401);
  });
});

function claims(tenant: Tenant, secondsFromNow: number) {
  return {
    orgId: tenant.org.id,
    keyId: tenant.keyId,
    scopes: ["tasks.read" as const],
    exp: Math.floor(Date.now() / 1000) + secondsFromNow,
  };
}

describe("ordering and once-only delivery", () => {
  it("30 concurrent writes arrive once each, in strictly increasing changeVersion order, on every socket", async () => {
    const tenant = await createTenant({ rateLimit: 5_000 });
    const project = await tenant.insertProject();
    const person = await tenant.insertPerson();
    const token = expectSuccess(await api("/v1/realtime/tokens", { key: tenant.key, body: { scopes: ["tasks.read"] } }), 201).data.token;
    const sockets = [
      await connectToRoom(tenant.org.id, { apiKey: tenant.key }),
      await connectToRoom(tenant.org.id, { apiKey: (await tenant.keyWith(["tasks.read"])).key }),
      await connectToRoom(tenant.org.id, { token }),
    ];
    // As a client would: a 503 (the database busy past its timeout on a loaded machine) is retried
    // with the same Idempotency-Key, so each write happens exactly once.
    const write = async (i: number) => {
      const body = await taskBody(tenant, { projectId: project.id, assigneeId: person.id, title: `Concurrent ${i}` });
      const headers = { "idempotency-key": `concurrent-${tenant.org.id}-${i}` };
      let response = await api("/v1/tasks", { key: tenant.key, body, headers });
      for (let retry = 0; retry < 3 && response.status === 503; retry++)
        response = await api("/v1/tasks", { key: tenant.key, body, headers });
      return response;
    };
    const responses = await Promise.all(range(1, 30).map(write));
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 201));
    // The sentinel: a 31st write, after the 30. A repeat of any of them would reach a socket
    // before it (the room sends in changeVersion order), so once 31 is in, the 30 are exact.
    expect((await write(31)).status).toBe(201);
    for (const socket of sockets) {
      const events = await socket.waitFor(hasChangeVersion(31));
      expect(changeVersions(events)).toEqual(range(1, 31));
      expect(new Set(events.map((e) => e.id)).size).toBe(31);
      expect(new Set(events.map((e) => e.data.title)).size).toBe(31);
    }
  });

  it("replay: GET /v1/events?after=N returns exactly the events a client missed", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    for (let i = 0; i < 4; i++) await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 100 + i });
    const seen = changeVersions(await socket.waitForEvents(4));
    socket.close();
    // Away: six more changes.
    for (let i = 0; i < 6; i++) await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 200 + i });

    const after = seen.at(-1)!;
    const page = expectSuccess(await api(`/v1/events?after=${after}`, { key: tenant.key }));
    expect(page.data.map((e: RoomEvent) => e.changeVersion)).toEqual(range(5, 10));
    expect(page.data.map((e: RoomEvent) => e.data.budget)).toEqual([200, 201, 202, 203, 204, 205]);
    expect(page.nextCursor).toBeNull();

    // Back again: ready says where the room is, and what comes next continues from there.
    const again = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    expect(again.readies()).toEqual([10]);
    await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 300 });
    expect(changeVersions(await again.waitForEvents(1))).toEqual([11]);
  });
});

describe("publishes to the room", () => {
  it("repeated and out-of-order publishes are delivered once each, in changeVersion order", async () => {
    const tenant = await createTenant();
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    const [e1, e2, e3, e4, e5, e6] = range(1, 6).map((cv) => fakeEvent(tenant.org.id, cv));
    // Ahead of a gap: held back (the API has nothing to fill it with), acknowledged all the same.
    expect((await postToRoom(tenant.org.id, { events: [e3] })).body).toMatchObject({ acknowledged: [3], watermark: 0 });
    expect((await postToRoom(tenant.org.id, { events: [e3, e2] })).body).toMatchObject({ acknowledged: [3, 2], watermark: 0 });
    // The missing first one: all three go out, in order. It is the sentinel of "held back": had
    // e2 or e3 gone out before it, they would have reached the socket first.
    await postToRoom(tenant.org.id, { events: [e1] });
    expect(await socket.waitForEvents(3)).toEqual([e1, e2, e3]);
    // Repeats of what was delivered, and a batch out of order; then e6, the sentinel: any repeat
    // the room sent would have reached the socket before it.
    await postToRoom(tenant.org.id, { events: [e2, e1] });
    await postToRoom(tenant.org.id, { events: [e5, e3, e4, e5] });
    await postToRoom(tenant.org.id, { events: [e6] });
    expect(await socket.waitFor((events) => events.some((e) => e.id === e6!.id))).toEqual([e1, e2, e3, e4, e5, e6]);
  });

  it("an event after a gap makes the room fetch the missing ones from the API first", async () => {
    const tenant = await createTenant();
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    const project = await tenant.insertProject();
    // Four changes committed whose publishes never reached the room (Worker evicted, say).
    // Each the project.updated event the API would have stored: the whole record, and its change.
    const record = expectSuccess(await api(`/v1/projects/${project.id}`, { key: tenant.key })).data;
    for (let cv = 1; cv <= 4; cv++) {
      await query(
        `insert into events (id, org_id, change_version, type, scope, data, changes) values ($1, $2, $3, 'project.updated', 'projects.read', $4, $5)`,
        [
          randomUUID(),
          tenant.org.id,
          cv,
          JSON.stringify({ ...record, budget: cv }),
          JSON.stringify({ budget: { from: cv === 1 ? record.budget : cv - 1, to: cv } }),
        ],
      );
    }
    await query("update organisations set change_version = 4 where id = $1", [tenant.org.id]);
    // The fifth, through the API: published at once; the room fills 1..4 before it.
    await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 5 });
    const events = await socket.waitForEvents(5);
    expect(changeVersions(events)).toEqual([1, 2, 3, 4, 5]);
    expect(events.slice(0, 4).map((e) => e.data.budget)).toEqual([1, 2, 3, 4]);
    // The late publishes of 2 and 4 change nothing: the sixth change, made after them, is the next
    // thing the socket receives (a repeat from the gap fill or from these would come before it).
    const stored = expectSuccess(await api("/v1/events?after=0", { key: tenant.key })).data as RoomEvent[];
    await postToRoom(tenant.org.id, { events: [stored[3], stored[1]] });
    await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 6 });
    expect(changeVersions(await socket.waitFor(hasChangeVersion(6)))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("events pruned before the room delivered them do not hold the later ones: it goes on from the first kept and says ready there", async () => {
    const tenant = await createTenant();
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    expect(socket.readies()).toEqual([0]);
    // 1 and 2 were pruned by retention before any publish reached the room (a room down past
    // retention, or a sweep whose pruning ran first); 3..5 are kept, unpublished.
    await query(
      `insert into events (id, org_id, change_version, type, scope, data, actor)
       select gen_random_uuid(), $1, v, 'task.updated', 'tasks.read', jsonb_build_object('id', gen_random_uuid()),
              '{"type":"system","id":null,"name":"opsroom"}'::jsonb
         from generate_series(3, 5) v`,
      [tenant.org.id],
    );
    await query("update organisations set change_version = 6 where id = $1", [tenant.org.id]);
    expect((await postToRoom(tenant.org.id, { events: [fakeEvent(tenant.org.id, 6)] })).status).toBe(200);
    expect(changeVersions(await socket.waitForEvents(4))).toEqual([3, 4, 5, 6]);
    // The sockets were promised every event after 0: a second ready tells them where the room now
    // stands, so a client catches up through the feed (410 resync_required for what is gone).
    expect(socket.readies()).toEqual([0, 2]);
    const readyAt = socket.messages.findIndex((m) => m.message.type === "ready" && m.message.changeVersion === 2);
    expect(socket.messages[readyAt + 1]?.message).toMatchObject({ changeVersion: 3 });
  });

  it("the room refuses any publisher without the shared secret", async () => {
    const tenant = await createTenant();
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    const forged = fakeEvent(tenant.org.id, 1);
    expect((await postToRoom(tenant.org.id, { events: [forged] }, "wrong-secret")).status).toBe(401);
    expect((await postToRoom(tenant.org.id, { events: [forged] }, "")).status).toBe(401);
    // An API key is not the secret either.
    expect((await postToRoom(tenant.org.id, { events: [forged] }, tenant.key)).status).toBe(401);
    const get = await fetch(`${inject("realtimeUrl")}/parties/v1/${tenant.org.id}`);
    expect(get.status).toBe(405);
    // The sentinel: the organisation's real first change, through the API. Had the forged event
    // been taken, the socket would have received it first (and the room, its watermark at 1, would
    // have dropped this one).
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const events = await socket.waitForEvents(1);
    expect(events.map((e) => [e.id === forged.id, e.type, e.changeVersion, e.data.id])).toEqual([
      [false, "project.created", 1, project.id],
    ]);
  });
});
