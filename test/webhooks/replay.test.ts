import { describe, expect, it } from "vitest";
import { WINDOW_SECONDS } from "../../domain/limits.ts";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, patched, projectBody, taskBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { insertEvents, insertWebhook, registerWebhook, waitForAttempt } from "./helpers.ts";

// POST /v1/webhooks/:id/replay (docs/api.md "Webhooks"): the kept events of (after, until] that the
// webhook would have received (its scopes and its filter) queued again, in changeVersion order.
// The receiving order is checked on ordered webhooks, whose deliveries go one at a time.

useRoom();

const replay = (key: string, webhookId: string, body: unknown) => api(`/v1/webhooks/${webhookId}/replay`, { key, method: "POST", body });

describe("what a replay sends", () => {
  it("the events of the range the webhook's filter selects, in changeVersion order, and how many were queued", async () => {
    const tenant = await createTenant();
    // A witness receives every event: once it has the last one, the room has queued all six (in
    // changeVersion order), so a webhook registered after it receives none of them live.
    const witness = await startReceiver("witness");
    await registerWebhook(tenant.key, witness);
    const [a, b] = [await created(tenant.key, "/v1/projects", projectBody()), await created(tenant.key, "/v1/projects", projectBody())];
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: a.id }));
    await patched(tenant.key, `/v1/projects/${a.id}`, { status: "active" });
    await patched(tenant.key, `/v1/tasks/${task.id}`, { status: "in_progress" });
    await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: b.id }));
    await witness.waitFor((received) => received.some((d) => d.event.changeVersion === 6));
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { projectId: a.id, events: ["project.*", "task.created"], ordered: true });

    const all = expectSuccess(await replay(tenant.key, webhook.id, { after: 0 }), 202);
    expect(all.data).toEqual({ webhookId: webhook.id, after: 0, until: 6, queued: 3 });
    expect(all.changeVersion).toBe(6);
    const first = await receiver.waitForCount(3);
    expect(first.map((d) => [d.event.type, d.event.changeVersion])).toEqual([
      ["project.created", 1],
      ["task.created", 3],
      ["project.updated", 4],
    ]);
    expect(first.every((d) => d.verified)).toBe(true);
    // Each the event as stored: GET /v1/events answers the same bodies.
    const events = expectSuccess(await api("/v1/events", { key: tenant.key })).data;
    expect(first.map((d) => JSON.parse(d.body))).toEqual([events[0], events[2], events[3]]);

    expect(expectSuccess(await replay(tenant.key, webhook.id, { after: 1, until: 3 }), 202).data).toEqual({
      webhookId: webhook.id,
      after: 1,
      until: 3,
      queued: 1,
    });
    expect((await receiver.waitForCount(4)).map((d) => d.event.changeVersion)).toEqual([1, 3, 4, 3]);
  });

  it("never beyond the webhook's scopes, and without its owner's own writes when excludeOwn", async () => {
    const tenant = await createTenant();
    const registrar = await tenant.keyWith(["tasks.manage", "webhooks.manage"]);
    const receiver = await startReceiver();
    const webhook = await registerWebhook(registrar.key, receiver, { excludeOwn: true, ordered: true });
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const own = await created(registrar.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id }));
    await patched(tenant.key, `/v1/tasks/${own.id}`, { status: "in_progress" });
    // Live deliveries first: only the other key's task change (3).
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 3);
    expect(expectSuccess(await replay(registrar.key, webhook.id, { after: 0 }), 202).data.queued).toBe(1);
    const deliveries = await receiver.waitForCount(2);
    expect(deliveries.map((d) => d.event.changeVersion)).toEqual([3, 3]);
  });

  it("a range of more events than one message to the room holds: each once", { timeout: 60_000 }, async () => {
    const tenant = await createTenant();
    const [mine, other] = [await tenant.insertProject(), await tenant.insertProject()];
    await insertEvents(tenant, 700, [mine.id, other.id]);
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { projectId: mine.id });
    expect(expectSuccess(await replay(tenant.key, webhook.id, { after: 0 }), 202).data).toEqual({
      webhookId: webhook.id,
      after: 0,
      until: 700,
      queued: 350,
    });
    // Unordered: received in any order, each event of the project once.
    const deliveries = await receiver.waitForCount(350, 45_000);
    expect(deliveries.map((d) => d.event.changeVersion).sort((a, b) => a - b)).toEqual(Array.from({ length: 350 }, (_, i) => 2 * (i + 1)));
    expect(new Set(deliveries.map((d) => d.event.data.projectId))).toEqual(new Set([mine.id]));
  });
});

describe("what a replay counts against the rate limit", () => {
  const secondsLeftInWindow = () => WINDOW_SECONDS - (Math.floor(Date.now() / 1000) % WINDOW_SECONDS);
  const remaining = (response: ApiResponse) => Number(response.headers.get("ratelimit-remaining"));

  it(
    "a request per 10 events queued: past the key's limit it queues what fits, 429 with Retry-After and queuedUpTo, and going on from there sends each event once",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      await insertEvents(tenant, 700, [(await tenant.insertProject()).id, (await tenant.insertProject()).id]);
      const registrar = await tenant.keyWith(["tasks.read", "webhooks.manage"]);
      const receiver = await startReceiver();
      const webhook = await registerWebhook(registrar.key, receiver);
      const small = await tenant.keyWith(["tasks.read", "webhooks.manage"], { rateLimit: 60 });
      // The counts belong to one fixed window: start where enough of it is left (a wait for alignment).
      if (secondsLeftInWindow() < 20) await new Promise((resolve) => setTimeout(resolve, secondsLeftInWindow() * 1000 + 500));

      // 700 events count 70 requests; the key's 60 pay for the first 600 (one Worker instance: exact counts).
      const stopped = await replay(small.key, webhook.id, { after: 0 });
      const refusal = expectError(stopped, 429, "rate_limited", { queuedUpTo: 600 });
      expect(Number(stopped.headers.get("retry-after"))).toBe(refusal.error.retryAfter);
      expect(remaining(stopped)).toBe(0);
      // Spent: the same key is refused before anything is read or queued.
      expectError(await replay(small.key, webhook.id, { after: 600 }), 429, "rate_limited");

      // Going on from queuedUpTo with another key: 100 events, 10 requests (the call and 9 more).
      const probe = await api("/v1", { key: registrar.key });
      expectSuccess(probe);
      const resumed = await replay(registrar.key, webhook.id, { after: 600 });
      expect(expectSuccess(resumed, 202).data).toEqual({ webhookId: webhook.id, after: 600, until: 700, queued: 100 });
      expect(remaining(resumed)).toBe(remaining(probe) - 10);

      await receiver.waitForCount(700, 30_000);
      // The sentinel: a test delivery, queued behind everything the replays queued.
      const sentinel = expectSuccess(await api(`/v1/webhooks/${webhook.id}/test`, { key: registrar.key, method: "POST" }), 202).data;
      await waitForAttempt(registrar.key, webhook.id, (d) => d.eventId === sentinel.eventId, 30_000);
      const changeVersions = receiver.deliveries.filter((d) => d.event.id !== sentinel.eventId).map((d) => d.event.changeVersion);
      expect(changeVersions.sort((x, y) => x - y)).toEqual(Array.from({ length: 700 }, (_, i) => i + 1));
    },
  );
});

describe("refused replays", () => {
  it("an empty, inverted, future or too long range: 400 invalid_field naming the field, nothing queued", async () => {
    const tenant = await createTenant();
    const webhook = await insertWebhook(tenant);
    await created(tenant.key, "/v1/projects", projectBody());
    const before = await snapshot(tenant.org.id);
    const refusals: Array<[unknown, string]> = [
      [{ after: 5 }, "after"],
      // Past int4's range (the statement once added 1 to it as an integer: 500), and the largest taken.
      [{ after: 2_147_483_647 }, "after"],
      [{ after: Number.MAX_SAFE_INTEGER }, "after"],
      [{ after: 1, until: 1 }, "until"],
      [{ after: 1, until: 0 }, "until"],
      [{ after: 0, until: 2 }, "until"],
      [{ after: -1 }, "after"],
      [{ after: 0.5 }, "after"],
      [{ until: 1 }, "after"],
      [{ after: "0" }, "after"],
    ];
    for (const [body, field] of refusals)
      expectError(await replay(tenant.key, webhook, body), 400, ["invalid_field", "missing_field"], { field });
    expectError(await replay(tenant.key, webhook, { after: 0, from: 1 }), 400, "unknown_field", { field: "from" });
    // Caught up is not an error: nothing to queue.
    const caughtUp = await replay(tenant.key, webhook, { after: 1 });
    expect(expectSuccess(caughtUp, 202).data).toMatchObject({ after: 1, until: 1, queued: 0 });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("a range over 10000 changeVersions: 400 naming until and saying to split it; 10000 exactly is taken", async () => {
    const tenant = await createTenant();
    const webhook = await insertWebhook(tenant);
    await query("update organisations set change_version = 20000 where id = $1", [tenant.org.id]);
    for (const body of [{ after: 0 }, { after: 0, until: 10_001 }, { after: 9_999 }]) {
      const refused = expectError(await replay(tenant.key, webhook, body), 400, "invalid_field", { field: "until" });
      expect(refused.message).toMatch(/10000.*split/);
    }
    // The span is allowed; the events are simply not there (none was ever kept): past retention.
    expectError(await replay(tenant.key, webhook, { after: 10_000 }), 410, "resync_required", { field: "after" });
  });

  it("after older than the oldest kept event: 410 resync_required with oldestChangeVersion", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { ordered: true });
    for (let i = 0; i < 3; i++) await created(tenant.key, "/v1/projects", projectBody());
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 3);
    await query("update events set occurred_at = now() - interval '31 days' where org_id = $1 and change_version <= 2", [tenant.org.id]);
    for (const after of [0, 1])
      expectError(await replay(tenant.key, webhook.id, { after }), 410, "resync_required", { field: "after", oldestChangeVersion: 3 });
    expect(expectSuccess(await replay(tenant.key, webhook.id, { after: 2 }), 202).data.queued).toBe(1);
    await receiver.waitForCount(4);
    expect(receiver.deliveries.map((d) => d.event.changeVersion).sort()).toEqual([1, 2, 3, 3]);
  });

  it("a webhook that is off: 409; a key without the webhook's scopes: 403; neither sends anything", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { events: ["task.deleted"] });
    await created(tenant.key, "/v1/projects", projectBody());
    const manager = await tenant.keyWith(["webhooks.manage", "tasks.read"]);
    const before = await snapshot(tenant.org.id);
    expectError(await replay(manager.key, webhook.id, { after: 0 }), 403, "insufficient_scope");
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { enabled: false });
    expect(expectError(await replay(tenant.key, webhook.id, { after: 0 }), 409, "conflict").message).toMatch(/disabled/);
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { enabled: true });
    // The sentinel: a test delivery, which anything the refused calls queued would be ahead of.
    const sentinel = expectSuccess(await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }), 202).data;
    await waitForAttempt(tenant.key, webhook.id, (d) => d.eventId === sentinel.eventId);
    expect(receiver.deliveries.map((d) => d.event.id)).toEqual([sentinel.eventId]);
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(before.changeVersion);
  });
});

describeRefusals({
  method: "POST",
  path: (id) => `/v1/webhooks/${id}/replay`,
  scope: "webhooks.manage",
  // A change to replay, so that the range (0, 1] is not empty.
  record: async (tenant) => {
    await created(tenant.key, "/v1/projects", projectBody());
    return insertWebhook(tenant);
  },
  body: () => ({ after: 0 }),
});
