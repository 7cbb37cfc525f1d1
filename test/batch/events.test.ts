import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { connectToRoom, useRoom, type RoomEvent } from "../helpers/realtime.ts";
import { milestoneBody, personBody, projectBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForAttempt } from "../webhooks/helpers.ts";
import { committed, expectOneBatch, feed, sendBatch, type BatchAnswer, type FeedEvent, type Operation } from "./helpers.ts";

// The events of a batch reach clients as a single call's do, in order, each carrying the batch's
// id (docs/api.md "Batches"): on a socket of the organisation's room, on webhooks, in GET
// /v1/events and a record's history; a single call's events carry batchId null. A refused batch
// sends nothing: checked against a sentinel, a later single write whose event must arrive, never
// after a pause.

useRoom();

/** 12 operations over four kinds of record, a change and a delete among them. */
async function mixed(tenant: Tenant): Promise<Operation[]> {
  const doomed = await tenant.insertProject();
  return [
    { method: "POST", path: "/v1/personnel", ref: "a", body: personBody() },
    { method: "POST", path: "/v1/projects", ref: "p", body: projectBody() },
    { method: "POST", path: "/v1/projects/$p.id/milestones", ref: "m", body: milestoneBody() },
    ...Array.from({ length: 6 }, (_, i): Operation => ({
      method: "POST",
      path: "/v1/tasks",
      ref: `t${i}`,
      body: { title: `Task ${i}`, projectId: "$p.id", milestoneId: "$m.id", assigneeId: "$a.id", dueDate: "2026-06-30" },
    })),
    { method: "PATCH", path: "/v1/tasks/$t0.id", body: { status: "in_progress" } },
    { method: "PATCH", path: "/v1/projects/$p.id", body: { status: "active" } },
    { method: "DELETE", path: `/v1/projects/${doomed.id}` },
  ];
}

const TYPES = [
  "personnel.created",
  "project.created",
  "milestone.created",
  ...Array(6).fill("task.created"),
  "task.updated",
  "project.updated",
  "project.deleted",
];

/** The events as the feed has them, without what a transport may add or drop: equal to what a socket or webhook carried. */
const comparable = (events: Array<RoomEvent | FeedEvent>) =>
  events.map((e) => ({ id: e.id, type: e.type, changeVersion: e.changeVersion, batchId: e.batchId, data: e.data }));

describe("a batch's events, everywhere a client reads them", () => {
  it(
    "on a socket: every one, in order, each with the batch's id; a single write after it has batchId null",
    { timeout: 30_000 },
    async () => {
      const tenant = await createTenant();
      const operations = await mixed(tenant);
      const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
      const answer = await committed(tenant.key, operations);
      const single = expectSuccess(await api("/v1/projects", { key: tenant.key, body: projectBody() }), 201);

      const received = await socket.waitForEvents(operations.length + 1);
      expect(received.map((e) => e.type)).toEqual([...TYPES, "project.created"]);
      expectOneBatch(answer, received.slice(0, -1));
      expect(received.at(-1)).toMatchObject({ changeVersion: single.changeVersion, batchId: null });
      expect(comparable(received)).toEqual(comparable(await feed(tenant.key, 0)));
      expect(received.slice(0, -1).map((e) => e.data.id)).toEqual(answer.data.map((r) => r.data.id));
    },
  );

  it(
    "on webhooks: an ordered webhook receives them one after another in order, an unordered one all of them, each with the batch's id",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      const ordered = await startReceiver("ordered");
      const unordered = await startReceiver("unordered");
      await registerWebhook(tenant.key, ordered, { ordered: true });
      await registerWebhook(tenant.key, unordered);
      const operations = await mixed(tenant);
      const answer = await committed(tenant.key, operations);

      const inOrder = await ordered.waitForCount(operations.length, 30_000);
      expect(
        inOrder.every((d) => d.verified),
        inOrder.map((d) => d.verifyError).join(),
      ).toBe(true);
      expect(inOrder.map((d) => d.event.type)).toEqual(TYPES);
      expectOneBatch(
        answer,
        inOrder.map((d) => d.event),
      );
      const feedEvents = await feed(tenant.key, 0);
      expect(inOrder.map((d) => JSON.parse(d.body))).toEqual(feedEvents);

      const any = await unordered.waitForCount(operations.length, 30_000);
      const sorted = [...any].sort((x, y) => x.event.changeVersion - y.event.changeVersion);
      expect(sorted.map((d) => JSON.parse(d.body))).toEqual(feedEvents);
    },
  );

  it("in GET /v1/events and a record's history: the batch's id on its events, null on a single call's", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { title: "Single" } }));
    const first = await committed(tenant.key, [{ method: "PATCH", path: `/v1/tasks/${task.id}`, body: { status: "in_progress" } }]);
    const second = await committed(tenant.key, [{ method: "PATCH", path: `/v1/tasks/${task.id}`, body: { priority: "urgent" } }]);
    expect(second.batchId).not.toBe(first.batchId);
    const history = expectSuccess(await api(`/v1/tasks/${task.id}/history`, { key: tenant.key })).data as FeedEvent[];
    expect(history.map((e) => [e.changeVersion, e.batchId])).toEqual([
      [1, null],
      [2, first.batchId],
      [3, second.batchId],
    ]);
    expect((await feed(tenant.key, 0)).map((e) => e.batchId)).toEqual([null, first.batchId, second.batchId]);
  });
});

describe("a refused batch sends nothing", () => {
  it("to a socket or a webhook: the next thing they receive is the sentinel written after it", { timeout: 60_000 }, async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { ordered: true });
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    const operations = await mixed(tenant);
    const refused = await sendBatch(tenant.key, [...operations, { method: "PATCH", path: "/v1/tasks/$t1.id", body: { status: "done" } }]);
    expectError(refused, 409, "invalid_transition", { operation: operations.length });

    const sentinel = expectSuccess(await api("/v1/projects", { key: tenant.key, body: projectBody({ name: "Sentinel" }) }), 201);
    expect(sentinel.changeVersion, "the refused batch took no changeVersion").toBe(1);
    const received = await socket.waitForEvents(1);
    await waitForAttempt(tenant.key, webhook.id, (attempt) => attempt.changeVersion === 1);
    expect(comparable(received)).toEqual(comparable(await feed(tenant.key, 0)));
    expect(received).toHaveLength(1);
    expect(receiver.deliveries.map((d) => [d.event.type, d.event.data.name])).toEqual([["project.created", "Sentinel"]]);
  });
});

describe("a batch that commits while another is published", () => {
  it(
    "two batches and single writes at once: a socket gets every event once, in changeVersion order, each batch's contiguous",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
      const batchOf = (name: string): Operation[] =>
        Array.from({ length: 15 }, (_, i) => ({ method: "POST", path: "/v1/projects", body: projectBody({ name: `${name} ${i}` }) }));
      const responses = await Promise.all([
        sendBatch(tenant.key, batchOf("A")),
        sendBatch(tenant.key, batchOf("B")),
        ...Array.from({ length: 5 }, (_, i) => api("/v1/projects", { key: tenant.key, body: projectBody({ name: `Single ${i}` }) })),
      ]);
      const [a, b] = responses.slice(0, 2).map((r) => expectSuccess(r, 200) as unknown as BatchAnswer);
      responses.slice(2).forEach((r) => expectSuccess(r, 201));
      const received = await socket.waitForEvents(35);
      expect(received.map((e) => e.changeVersion)).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
      for (const batch of [a!, b!])
        expectOneBatch(
          batch,
          received.filter((e) => e.batchId === batch.batchId),
        );
      expect(received.filter((e) => e.batchId === null)).toHaveLength(5);
    },
  );
});
