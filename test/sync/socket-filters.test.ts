import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { asPerson, signUp } from "../helpers/people.ts";
import { connectToRoom, upgradeStatus, useRoom, type Credential, type RoomEvent, type RoomSocket } from "../helpers/realtime.ts";
import { created, patched, personBody, projectBody, taskBody } from "../helpers/resources.ts";

// The feed's filter on sockets (docs/sync.md): connection query parameters beside apiKey/token,
// the same as GET /v1/events takes. "Never receives" is checked against a sentinel: the room sends
// a socket its events in changeVersion order, so once the last event a socket must receive has
// arrived, anything unwanted before it would have arrived too.

useRoom();

const seen = (socket: RoomSocket) => socket.events().map((e) => `${e.changeVersion} ${e.type}`);
const upTo = (changeVersion: number) => (events: RoomEvent[]) => events.some((e) => e.changeVersion >= changeVersion);

describe("a socket's filter", () => {
  it("types, projectId, recordId, excludeOwn and all of them at once: each socket receives exactly what it asked for", async () => {
    const tenant = await createTenant();
    const other = await tenant.keyWith(["projects.manage", "tasks.manage", "organisation.manage"]);
    const p1 = await created(tenant.key, "/v1/projects", projectBody());
    const p2 = await created(tenant.key, "/v1/projects", projectBody());
    const t1 = await created(other.key, "/v1/tasks", await taskBody(tenant, { projectId: p1.id }));
    const t2 = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: p2.id }));
    const connect = (query: Omit<Credential, "apiKey">) => connectToRoom(tenant.org.id, { apiKey: tenant.key, ...query } as Credential);
    const sockets = {
      all: await connect({}),
      tasks: await connect({ types: "task.*" }),
      project: await connect({ projectId: p1.id }),
      record: await connect({ recordId: t1.id }),
      notOwn: await connect({ excludeOwn: "true" }),
      combined: await connect({ types: "task.updated,milestone.*", projectId: p1.id, excludeOwn: "true" }),
    };
    for (const socket of Object.values(sockets)) expect(socket.readies()).toEqual([4]);

    await patched(other.key, `/v1/projects/${p1.id}`, { name: "P1 renamed" }); // 5 project.updated, P1, other
    await patched(tenant.key, `/v1/tasks/${t1.id}`, { title: "T1 by tenant" }); // 6 task.updated, P1, own
    await patched(other.key, `/v1/tasks/${t2.id}`, { title: "T2 by other" }); // 7 task.updated, P2, other
    await created(tenant.key, `/v1/projects/${p1.id}/milestones`, { name: "M", dueDate: "2026-05-01" }); // 8 milestone.created, P1, own
    await created(other.key, "/v1/personnel", personBody()); // 9 personnel.created, no project, other
    await patched(tenant.key, `/v1/projects/${p2.id}`, { name: "P2 renamed" }); // 10 project.updated, P2, own
    await patched(other.key, `/v1/tasks/${t1.id}`, { title: "T1 by other" }); // 11 task.updated, P1, other: the sentinel

    const expected: Record<keyof typeof sockets, string[]> = {
      all: [
        "5 project.updated",
        "6 task.updated",
        "7 task.updated",
        "8 milestone.created",
        "9 personnel.created",
        "10 project.updated",
        "11 task.updated",
      ],
      tasks: ["6 task.updated", "7 task.updated", "11 task.updated"],
      project: ["5 project.updated", "6 task.updated", "8 milestone.created", "11 task.updated"],
      record: ["6 task.updated", "11 task.updated"],
      notOwn: ["5 project.updated", "7 task.updated", "9 personnel.created", "11 task.updated"],
      combined: ["11 task.updated"],
    };
    for (const [name, socket] of Object.entries(sockets) as Array<[keyof typeof sockets, RoomSocket]>) {
      await socket.waitFor(upTo(11));
      expect(seen(socket), name).toEqual(expected[name]);
    }
  });

  it("excludeOwn on a token minted from a key leaves out that key's writes", async () => {
    const tenant = await createTenant();
    const other = await tenant.keyWith(["projects.manage"]);
    const token = expectSuccess(await api("/v1/realtime/tokens", { key: tenant.key, body: { scopes: ["projects.read"] } }), 201).data
      .token as string;
    const socket = await connectToRoom(tenant.org.id, { token, excludeOwn: "true" });
    await created(tenant.key, "/v1/projects", projectBody()); // 1, own
    await created(other.key, "/v1/projects", projectBody()); // 2, the sentinel
    await socket.waitFor(upTo(2));
    expect(seen(socket)).toEqual(["2 project.created"]);
  });

  it("excludeOwn on a person's socket leaves out that person's writes, whatever session made them", async () => {
    const person = await signUp();
    const key = expectSuccess(
      await asPerson(person.cookie, "/v1/settings/api-keys", { body: { name: "sync", scopes: ["projects.manage"] } }),
      201,
    ).data.key as string;
    const token = expectSuccess(await asPerson(person.cookie, "/v1/realtime/tokens", { body: {} }), 201).data.token as string;
    const socket = await connectToRoom(person.orgId, { token, excludeOwn: "true" });
    const mine = expectSuccess(await asPerson(person.cookie, "/v1/projects", { body: projectBody() }), 201); // 1, the person's own
    expect(mine.changeVersion).toBe(1);
    await created(key, "/v1/projects", projectBody()); // 2, a key's: not the person's own, though the person made the key
    await socket.waitFor(upTo(2));
    expect(seen(socket)).toEqual(["2 project.created"]);
  });

  it("never widens the socket's scopes: a tasks.read key asking for project events gets only task events", async () => {
    const tenant = await createTenant();
    const reader = await tenant.keyWith(["tasks.read"]);
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const socket = await connectToRoom(tenant.org.id, { apiKey: reader.key, types: "project.*,task.*", projectId: project.id });
    await patched(tenant.key, `/v1/projects/${project.id}`, { name: "Renamed" }); // 2: project.updated, not readable
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id })); // 3
    await socket.waitFor(upTo(3));
    expect(seen(socket)).toEqual(["3 task.created"]);
    expect(socket.events()[0]!.data.id).toBe(task.id);
  });
});

describe("a filter the room refuses", () => {
  it("answers 400 invalid_field naming the parameter, and opens no socket", async () => {
    const tenant = await createTenant();
    const cases: Array<[Record<string, string>, string]> = [
      [{ types: "task.*,bogus" }, "types"],
      [{ types: "tasks.*" }, "types"],
      [{ projectId: "not-a-uuid" }, "projectId"],
      [{ recordId: "0190" }, "recordId"],
      [{ excludeOwn: "yes" }, "excludeOwn"],
    ];
    for (const [params, field] of cases) {
      const answer = await upgradeStatus(tenant.org.id, { apiKey: tenant.key, ...params });
      expect(answer.status, JSON.stringify(params)).toBe(400);
      expect(JSON.parse(answer.body).error, JSON.stringify(params)).toEqual({
        code: "invalid_field",
        field,
        requestId: expect.any(String),
      });
    }
  });

  it("checks the credential first: a bad key with a bad filter is 401, as every API call checks its key before its input", async () => {
    const tenant = await createTenant();
    const revoked = await tenant.revokedKey();
    expect((await upgradeStatus(tenant.org.id, { apiKey: revoked.key, types: "bogus" })).status).toBe(401);
    expect((await upgradeStatus(tenant.org.id, { types: "bogus" })).status).toBe(401);
  });
});
