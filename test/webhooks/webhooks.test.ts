/* eslint-disable max-lines -- every case shares one realtime room lease and the same receivers; the cases with a seam of their own (bursts, restarts, scopes, redirects, URLs) have files of their own. */
import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { fakeEvent, postToRoom, useRoom } from "../helpers/realtime.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, patched, personBody, projectBody, taskBody } from "../helpers/resources.ts";
import { pollUntil } from "../helpers/wait.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import {
  deliveryLog,
  insertDelivery,
  insertWebhook,
  registerWebhook,
  stalledAndHealthy,
  untilPast,
  waitForAttempt,
  waitForLog,
} from "./helpers.ts";

// Webhooks (docs/api.md "Webhooks") end to end: the API registers them, the organisation's
// room (the real `partykit dev`) delivers every visible event to a real local receiver that
// verifies each request with the `standardwebhooks` package, retries, and keeps the log.
//
// "Never arrives" is checked after a sentinel delivery, never after a pause: see the top of
// ./helpers.ts for why a sentinel's attempt in the log implies the unwanted one would have come.

useRoom();

describe("delivery", () => {
  it("register, change a task: the receiver gets a verified delivery whose body is the event", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { description: "ops board" });
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant));
    await patched(tenant.key, `/v1/tasks/${task.id}`, { status: "in_progress" });

    const deliveries = await receiver.waitForCount(2);
    expect(
      deliveries.every((d) => d.verified),
      deliveries.map((d) => d.verifyError).join(),
    ).toBe(true);
    const events = expectSuccess(await api("/v1/events", { key: tenant.key })).data;
    // One request per event, the body exactly the event as GET /v1/events answers it.
    const byVersion = [...deliveries].sort((a, b) => a.event.changeVersion - b.event.changeVersion);
    expect(byVersion.map((d) => JSON.parse(d.body))).toEqual(events);
    for (const delivery of deliveries) {
      expect(delivery.headers["webhook-id"]).toBe(delivery.event.id);
      expect(delivery.headers["webhook-timestamp"]).toMatch(/^\d{10}$/);
      expect(Math.abs(Number(delivery.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
      expect(delivery.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(delivery.headers["content-type"]).toMatch(/^application\/json/);
    }
    const log = await waitForLog(tenant.key, webhook.id, (l) => l.length === 2);
    expect(log.map((d) => [d.eventType, d.attempt, d.outcome, d.responseStatus])).toEqual(
      expect.arrayContaining([
        ["task.created", 1, "succeeded", 200],
        ["task.updated", 1, "succeeded", 200],
      ]),
    );
  });

  it("a tampered signature does not verify (the receiver's check is real)", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    await registerWebhook(tenant.key, receiver);
    // Verify with another webhook's secret: every request must then fail verification.
    receiver.useSecret(`whsec_${Buffer.from("another secret entirely, 24b").toString("base64")}`);
    await created(tenant.key, "/v1/projects", projectBody());
    const [delivery] = await receiver.waitForCount(1);
    expect(delivery!.verified).toBe(false);
  });

  it("a receiver answering 500 then 200 gets the retry about 5 s later; the log shows both attempts", { timeout: 30_000 }, async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    receiver.answerWith((n) => (n === 1 ? { status: 500, body: "database on fire" } : 200));
    const webhook = await registerWebhook(tenant.key, receiver);
    await created(tenant.key, "/v1/projects", projectBody());

    const [first, second] = await receiver.waitForCount(2, 15_000);
    expect(first!.verified && second!.verified).toBe(true);
    expect(second!.event).toEqual(first!.event);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    const gap = second!.at - first!.at;
    expect(gap).toBeGreaterThan(4_500);
    expect(gap).toBeLessThan(10_000);

    const log = await waitForLog(tenant.key, webhook.id, (l) => l.length === 2);
    expect(log[0]).toMatchObject({
      eventType: "project.created",
      changeVersion: 1,
      attempt: 1,
      outcome: "retrying",
      responseStatus: 500,
      responseExcerpt: "database on fire",
      error: expect.any(String),
      nextRetryAt: expect.any(String),
    });
    const retryDue = Date.parse(log[0]!.nextRetryAt!) - Date.parse(log[0]!.createdAt);
    expect(retryDue).toBeGreaterThan(3_000);
    expect(retryDue).toBeLessThan(7_000);
    expect(log[1]).toMatchObject({
      eventId: log[0]!.eventId,
      attempt: 2,
      outcome: "succeeded",
      responseStatus: 200,
      error: null,
      nextRetryAt: null,
    });
    for (const attempt of log) expect(attempt.durationMs).toEqual(expect.any(Number));
  });

  it("a receiver that is down gets the event once it is back", { timeout: 30_000 }, async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    await receiver.stop();
    await created(tenant.key, "/v1/projects", projectBody());
    const [failed] = await waitForLog(tenant.key, webhook.id, (l) => l.length === 1);
    expect(failed).toMatchObject({ attempt: 1, outcome: "retrying", responseStatus: null, error: expect.stringContaining("connect") });
    await receiver.start();
    const [delivery] = await receiver.waitForCount(1, 15_000);
    expect(delivery!.verified).toBe(true);
    expect(delivery!.event).toMatchObject({ type: "project.created", changeVersion: 1 });
    await waitForLog(tenant.key, webhook.id, (l) => l.length === 2 && l[1]!.outcome === "succeeded");
  });

  it("a receiver that never answers holds up no other webhook of the organisation", { timeout: 90_000 }, async () => {
    const tenant = await createTenant();
    const { stalled, healthy, healthyId } = await stalledAndHealthy(tenant.key);
    const events = Array.from({ length: 100 }, (_, i) => fakeEvent(tenant.org.id, i + 1));
    expect((await postToRoom(tenant.org.id, { events })).status).toBe(200);
    // Each stalled request holds its connection for the 10 s timeout. The room has six (Workers
    // queue a seventh request, unsent, with its timer running: the room here runs behind a model of
    // that queue, realtime/connections.ts); the healthy webhook's 100 must neither wait behind the
    // stalled ones nor time out in the queue (with every connection held by the stalled webhook,
    // its requests would wait 10 s and be logged as timeouts, retried 5 s, 5 min, 30 min later).
    const started = performance.now();
    await healthy.waitForCount(100, 8_000);
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(healthy.deliveries.every((d) => d.verified)).toBe(true);
    expect(stalled.deliveries.length).toBeGreaterThan(0);
    // The drain reports its attempts once its last request is answered or timed out (about 15 s).
    const log = await waitForLog(tenant.key, healthyId, (l) => l.length >= 100, 30_000);
    expect(log.filter((d) => d.outcome !== "succeeded" || d.attempt !== 1)).toEqual([]);

    // The stalled webhook's 100 take minutes to time out (3 lanes, 10 s each); an event published
    // meanwhile must not wait for all of them: a drain stops taking jobs after 5 s and ends when its
    // last stalled request times out (at most 15 s in), and the next one fans the new event out.
    const later = fakeEvent(tenant.org.id, 101);
    expect((await postToRoom(tenant.org.id, { events: [later] })).status).toBe(200);
    await healthy.waitFor((received) => received.some((d) => d.event.id === later.id), 30_000);
  });
});

describe("what a webhook sees", () => {
  it("events outside the registering key's scopes never arrive", async () => {
    const tenant = await createTenant();
    const registrar = await tenant.keyWith(["tasks.manage", "webhooks.manage"]);
    const receiver = await startReceiver();
    const webhook = await registerWebhook(registrar.key, receiver);
    expect(webhook.scopes).toEqual(["tasks.read"]);
    // An all-scopes key writes a project, a milestone, a person and then a task.
    const project = await created(tenant.key, "/v1/projects", projectBody());
    await created(tenant.key, `/v1/projects/${project.id}/milestones`, { name: "M", dueDate: "2026-04-01" });
    const person = await created(tenant.key, "/v1/personnel", personBody());
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "active" });
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id, assigneeId: person.id }));
    await patched(tenant.key, `/v1/tasks/${task.id}`, { priority: "high" });
    // The sentinel is the last write, task.updated 6: the events before it would be queued ahead of it.
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 6);
    expect(receiver.deliveries.map((d) => d.event.type).sort()).toEqual(["task.created", "task.updated"]);
  });

  it('event patterns narrow further: events ["task.updated"] gets only task updates', async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { events: ["task.updated"] });
    expect(webhook.events).toEqual(["task.updated"]);
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant));
    await patched(tenant.key, `/v1/tasks/${task.id}`, { status: "in_progress" });
    expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "DELETE" }));
    await created(tenant.key, "/v1/projects", projectBody());
    // The sentinel: a task update after them all (the task inserted, so its creation writes no event).
    const another = await tenant.insertTask();
    await patched(tenant.key, `/v1/tasks/${another.id}`, { status: "in_progress" });
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 5);
    const received = receiver.deliveries.map((d) => [d.event.type, d.event.changeVersion] as const);
    expect(received.sort((a, b) => a[1] - b[1])).toEqual([
      ["task.updated", 2],
      ["task.updated", 5],
    ]);
  });

  it('patterns combine: ["project.*", "personnel.created"]', async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { events: ["project.*", "personnel.created"] });
    const project = await created(tenant.key, "/v1/projects", projectBody());
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "active" });
    const person = await created(tenant.key, "/v1/personnel", personBody());
    await patched(tenant.key, `/v1/personnel/${person.id}`, { role: "Lead" });
    await created(tenant.key, `/v1/projects/${project.id}/milestones`, { name: "M", dueDate: "2026-04-01" });
    // The sentinel: one more project update, after the two events no pattern selects.
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "on_hold" });
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 6);
    const received = receiver.deliveries.map((d) => [d.event.type, d.event.changeVersion] as const);
    expect(received.sort((a, b) => a[1] - b[1])).toEqual([
      ["project.created", 1],
      ["project.updated", 2],
      ["personnel.created", 3],
      ["project.updated", 6],
    ]);
  });
});

describe("the signing secret", () => {
  it("is in the create answer only: not in GET list, GET one or PATCH answers", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const reads = [
      await api("/v1/webhooks", { key: tenant.key }),
      await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key }),
      await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { description: "renamed" } }),
      await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { enabled: false } }),
    ];
    for (const response of reads) {
      expectSuccess(response);
      expect(response.text).not.toContain(webhook.secret);
      expect(response.text).not.toContain("whsec_");
      expect(response.text).not.toMatch(/"secret"/);
    }
  });

  it("a replayed create (same Idempotency-Key) answers the same secret; a new create a new one", async () => {
    const tenant = await createTenant();
    const body = { url: "https://hooks.example.com/opsroom" };
    const headers = { "idempotency-key": `create-webhook-${tenant.org.id}` };
    const first = await api("/v1/webhooks", { key: tenant.key, body, headers });
    const replay = await api("/v1/webhooks", { key: tenant.key, body, headers });
    expectSuccess(first, 201);
    expectSuccess(replay, 201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.data).toEqual(first.body.data);
    expect(replay.body.data.secret).toMatch(/^whsec_/);
    const other = expectSuccess(await api("/v1/webhooks", { key: tenant.key, body }), 201).data;
    expect(other.secret).not.toBe(first.body.data.secret);
    expect(expectSuccess(await api("/v1/webhooks", { key: tenant.key })).count).toBe(2);
  });
});

describe("refused URLs: 400 invalid_field naming url, nothing written", () => {
  const refused: Array<[string, string]> = [
    ["plain http to a public host", "http://hooks.example.com/opsroom"],
    ["credentials in the URL", "https://user:secret@hooks.example.com/opsroom"],
    ["a username alone", "https://user@hooks.example.com/opsroom"],
    ["10.x", "https://10.1.2.3/hook"],
    ["172.16.x", "https://172.16.0.5/hook"],
    ["192.168.x", "https://192.168.1.10/hook"],
    ["169.254.x (cloud metadata)", "https://169.254.169.254/latest/meta-data"],
    ["100.64.x (carrier-grade NAT)", "https://100.64.0.1/hook"],
    ["0.0.0.0", "https://0.0.0.0/hook"],
    ["IPv6 unique-local", "https://[fd12:3456::1]/hook"],
    ["IPv6 link-local", "https://[fe80::1]/hook"],
    ["IPv4-mapped IPv6", "https://[::ffff:10.0.0.1]/hook"],
    ["another scheme", "ftp://hooks.example.com/opsroom"],
    ["not a URL", "hooks dot example dot com"],
  ];
  for (const [label, url] of refused) {
    it(`${label}: ${url}`, async () => {
      const tenant = await createTenant();
      const before = await snapshot(tenant.org.id);
      expectError(await api("/v1/webhooks", { key: tenant.key, body: { url } }), 400, "invalid_field", { field: "url" });
      expectNoTrace(before, await snapshot(tenant.org.id));
    });
  }

  it("and on PATCH: the webhook keeps its URL", async () => {
    const tenant = await createTenant();
    const webhook = expectSuccess(await api("/v1/webhooks", { key: tenant.key, body: { url: "https://hooks.example.com/a" } }), 201).data;
    const before = await snapshot(tenant.org.id);
    expectError(
      await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { url: "https://192.168.0.1/b" } }),
      400,
      "invalid_field",
      {
        field: "url",
      },
    );
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("https to a public host and (here, where loopback is allowed) http to 127.0.0.1 are accepted", async () => {
    const tenant = await createTenant();
    for (const url of ["https://hooks.example.com/opsroom", "http://127.0.0.1:9/hook", "http://localhost:9/hook"]) {
      expectSuccess(await api("/v1/webhooks", { key: tenant.key, body: { url } }), 201);
    }
  });
});

describe("test, log, redeliver", () => {
  it("POST /v1/webhooks/:id/test delivers a verified webhook.test event, logged", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const queued = expectSuccess(await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }), 202).data;
    expect(queued).toMatchObject({ webhookId: webhook.id, eventType: "webhook.test" });
    const [delivery] = await receiver.waitForCount(1);
    expect(delivery!.verified).toBe(true);
    expect(delivery!.event).toMatchObject({
      id: queued.eventId,
      type: "webhook.test",
      orgId: tenant.org.id,
      data: { webhookId: webhook.id },
    });
    const log = await waitForLog(tenant.key, webhook.id, (l) => l.length === 1);
    expect(log[0]).toMatchObject({
      eventId: queued.eventId,
      eventType: "webhook.test",
      attempt: 1,
      outcome: "succeeded",
      responseStatus: 200,
    });
  });

  it("the test event goes out even when the webhook's patterns would not select it", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { events: ["task.deleted"] });
    expectSuccess(await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }), 202);
    expect((await receiver.waitForCount(1))[0]!.event.type).toBe("webhook.test");
  });

  it("redeliver sends a past delivery's event again, with the same webhook-id", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const [original] = await receiver.waitForCount(1);
    const [attempt] = await waitForLog(tenant.key, webhook.id, (l) => l.length === 1);
    const queued = expectSuccess(
      await api(`/v1/webhooks/${webhook.id}/deliveries/${attempt!.id}/redeliver`, { key: tenant.key, method: "POST" }),
      202,
    ).data;
    expect(queued).toEqual({ webhookId: webhook.id, eventId: original!.event.id, eventType: "project.created" });
    const [, again] = await receiver.waitForCount(2);
    expect(again!.verified).toBe(true);
    expect(again!.event).toEqual(original!.event);
    expect(again!.event.data.id).toBe(project.id);
    expect(again!.headers["webhook-id"]).toBe(original!.headers["webhook-id"]);
    const log = await waitForLog(tenant.key, webhook.id, (l) => l.length === 2);
    expect(log.map((d) => [d.eventId, d.outcome])).toEqual([
      [original!.event.id, "succeeded"],
      [original!.event.id, "succeeded"],
    ]);
  });

  it("redeliver of another webhook's delivery, or an unknown one: 404", async () => {
    const tenant = await createTenant();
    const one = await insertWebhook(tenant);
    const two = await insertWebhook(tenant);
    const delivery = await insertDelivery(tenant, one);
    expectError(await api(`/v1/webhooks/${two}/deliveries/${delivery}/redeliver`, { key: tenant.key, method: "POST" }), 404, "not_found");
    expectError(
      await api(`/v1/webhooks/${one}/deliveries/${crypto.randomUUID()}/redeliver`, { key: tenant.key, method: "POST" }),
      404,
      "not_found",
    );
  });
});

describe("turning deliveries off", () => {
  it("410 Gone disables the webhook (enabled false, disabledReason set); nothing more is delivered", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    receiver.answerWith(() => 410);
    const webhook = await registerWebhook(tenant.key, receiver);
    const project = await created(tenant.key, "/v1/projects", projectBody());
    await receiver.waitForCount(1);
    const [attempt] = await waitForLog(tenant.key, webhook.id, (l) => l.length === 1);
    expect(attempt).toMatchObject({ attempt: 1, outcome: "failed", responseStatus: 410, nextRetryAt: null });
    const current = await pollUntil(
      async () => expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key })).data,
      (w) => !w.enabled,
    );
    expect(current).toMatchObject({ enabled: false, disabledReason: expect.stringContaining("410") });

    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "active" });
    expectError(await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }), 409, "conflict");

    // Turned back on, it clears the reason and receives again. Its next event, project.updated 3,
    // is also the sentinel of "nothing more while it was off": event 2, or a test, queued then
    // would be ahead of it.
    receiver.answerWith(() => 200);
    const enabled = expectSuccess(
      await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { enabled: true } }),
    ).data;
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null });
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "on_hold" });
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 3);
    expect(receiver.deliveries.map((d) => [d.event.type, d.event.changeVersion])).toEqual([
      ["project.created", 1],
      ["project.updated", 3],
    ]);
  });

  it("a webhook turned off with PATCH enabled:false gets nothing", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { enabled: false } }));
    // A witness gets event 1 once the room has turned it into jobs, for every webhook at once: only
    // then is the first one turned on again (earlier, event 1 could still be queued for it).
    const witness = await startReceiver("witness");
    await registerWebhook(tenant.key, witness);
    await created(tenant.key, "/v1/projects", projectBody());
    await witness.waitForCount(1);
    // The sentinel: turned on again, its next event (2) arrives; event 1, had it been queued while
    // the webhook was off, would be ahead of it.
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { enabled: true });
    await created(tenant.key, "/v1/projects", projectBody());
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 2);
    expect(receiver.deliveries.map((d) => d.event.changeVersion)).toEqual([2]);
  });

  it("a test or a redelivery to a webhook that is off: 409 conflict, nothing sent", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    expectSuccess(await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }), 202);
    const [first] = await waitForLog(tenant.key, webhook.id, (l) => l.length === 1);
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { enabled: false });
    const refusals = [
      await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }),
      await api(`/v1/webhooks/${webhook.id}/deliveries/${first!.id}/redeliver`, { key: tenant.key, method: "POST" }),
    ];
    for (const refusal of refusals) expect(expectError(refusal, 409, "conflict").message).toMatch(/disabled/);
    // The sentinel: turned on again, a new test goes out; anything the refused calls had queued
    // would be ahead of it.
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { enabled: true });
    const sentinel = expectSuccess(await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }), 202).data;
    await waitForAttempt(tenant.key, webhook.id, (d) => d.eventId === sentinel.eventId);
    expect(receiver.deliveries.map((d) => d.event.id)).toEqual([first!.eventId, sentinel.eventId]);
  });

  it("deleting a webhook stops deliveries, including a retry already queued", { timeout: 30_000 }, async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    receiver.answerWith(() => 503);
    const webhook = await registerWebhook(tenant.key, receiver);
    // The deleted webhook can receive nothing to end on: a second webhook of the organisation is the sentinel.
    const witness = await startReceiver("witness");
    const witnessHook = await registerWebhook(tenant.key, witness);
    await created(tenant.key, "/v1/projects", projectBody());
    await receiver.waitForCount(1);
    const [retrying] = await waitForLog(tenant.key, webhook.id, (l) => l.length === 1 && l[0]!.outcome === "retrying");
    expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "DELETE" }));
    // Past the 5 s retry, a new event: neither the retry nor the new event may reach the deleted
    // webhook. The witness's attempt at the new event is the sentinel: the drain that made it began
    // after the retry was due and after the new event was fanned out, and would have sent both.
    await untilPast(Date.parse(retrying!.nextRetryAt!));
    await created(tenant.key, "/v1/projects", projectBody());
    await waitForAttempt(tenant.key, witnessHook.id, (d) => d.changeVersion === 2);
    expect(receiver.deliveries).toHaveLength(1);
    expect(witness.deliveries.map((d) => d.event.changeVersion).sort((a, b) => a - b)).toEqual([1, 2]);
  });

  it("turning a webhook off drops its queued retries: turned on again, it gets only new events", { timeout: 30_000 }, async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    receiver.answerWith((n) => (n === 1 ? 503 : 200));
    const webhook = await registerWebhook(tenant.key, receiver);
    await created(tenant.key, "/v1/projects", projectBody());
    const [retrying] = await waitForLog(tenant.key, webhook.id, (l) => l.length === 1 && l[0]!.outcome === "retrying");
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { enabled: false });
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { enabled: true });
    await created(tenant.key, "/v1/projects", projectBody());
    // Past the 5 s retry, the sentinel: event 3, queued after the retry fell due, so behind it in
    // the webhook's queue. Only the event written after it was turned on again (2) and the
    // sentinel arrive.
    await untilPast(Date.parse(retrying!.nextRetryAt!));
    await created(tenant.key, "/v1/projects", projectBody());
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 3);
    expect(receiver.deliveries.map((d) => d.event.changeVersion).sort((a, b) => a - b)).toEqual([1, 2, 3]);
  });
});

describe("changing a webhook", () => {
  it("a new url: the next events go there", async () => {
    const tenant = await createTenant();
    const first = await startReceiver("first");
    const second = await startReceiver("second");
    const webhook = await registerWebhook(tenant.key, first);
    second.useSecret(webhook.secret);
    await created(tenant.key, "/v1/projects", projectBody());
    await first.waitForCount(1);
    const moved = expectSuccess(
      await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { url: second.url } }),
    ).data;
    expect(moved.url).toBe(second.url);
    await created(tenant.key, "/v1/projects", projectBody());
    const [delivery] = await second.waitForCount(1);
    expect(delivery!.verified).toBe(true);
    expect(delivery!.event.changeVersion).toBe(2);
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 2);
    expect(first.deliveries).toHaveLength(1);
  });
});

// The shared refusals of every webhook endpoint (key, scope, body, existence).
const webhookRecord = (tenant: Parameters<typeof insertWebhook>[0]) => insertWebhook(tenant);
/** Redeliver needs a delivery of the webhook in its path: remembered per webhook made. */
const deliveryOf = new Map<string, string>();

describeRefusals({ method: "GET", path: () => "/v1/webhooks", scope: "webhooks.read" });
describeRefusals({
  method: "POST",
  path: () => "/v1/webhooks",
  scope: "webhooks.manage",
  body: () => ({ url: "https://hooks.example.com/opsroom" }),
});
describeRefusals({ method: "GET", path: (id) => `/v1/webhooks/${id}`, scope: "webhooks.read", record: webhookRecord });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/webhooks/${id}`,
  scope: "webhooks.manage",
  record: webhookRecord,
  body: () => ({ enabled: false }),
});
describeRefusals({ method: "DELETE", path: (id) => `/v1/webhooks/${id}`, scope: "webhooks.manage", record: webhookRecord });
describeRefusals({ method: "POST", path: (id) => `/v1/webhooks/${id}/test`, scope: "webhooks.manage", record: webhookRecord });
describeRefusals({ method: "GET", path: (id) => `/v1/webhooks/${id}/deliveries`, scope: "webhooks.read", record: webhookRecord });
describeRefusals({
  method: "POST",
  path: (id) => `/v1/webhooks/${id}/deliveries/${(id && deliveryOf.get(id)) ?? crypto.randomUUID()}/redeliver`,
  scope: "webhooks.manage",
  record: async (tenant) => {
    const id = await insertWebhook(tenant);
    deliveryOf.set(id, await insertDelivery(tenant, id));
    return id;
  },
});

describe("GET /v1/webhooks/:id/deliveries", () => {
  it("pages newest first", async () => {
    const tenant = await createTenant();
    const webhook = await insertWebhook(tenant);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await insertDelivery(tenant, webhook, new Date(Date.now() - (5 - i) * 1000)));
    const first = expectSuccess(await api(`/v1/webhooks/${webhook}/deliveries?limit=3`, { key: tenant.key }));
    expect(first.data).toHaveLength(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = expectSuccess(await api(`/v1/webhooks/${webhook}/deliveries?limit=3&cursor=${first.nextCursor}`, { key: tenant.key }));
    expect([...first.data, ...second.data].map((d: { id: string }) => d.id)).toEqual(ids.reverse());
    expect(second.nextCursor).toBeNull();
    expect(await deliveryLog(tenant.key, webhook)).toHaveLength(5);
  });
});
