import { expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { created, patched, projectBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { TEST_WEBHOOK_BACKLOG_LIMIT as LIMIT } from "../setup/realtime-server.ts";
import { insertEvents, registerWebhook, waitForAttempt, waitForLogged } from "./helpers.ts";

// A webhook's backlog, the deliveries queued for it, is capped in its room (docs/api.md
// "Webhooks"; WEBHOOK_BACKLOG_LIMIT, 2 000 in the tests): a replay, test delivery or redelivery
// that would pass the cap is refused 409 with nothing queued, and a live event past it is not
// lost silently but logged as dropped, for a redelivery or a replay later. Before issue 31 a
// receiver that was down let its queue grow without end.

useRoom();

it(
  `a stalled receiver's backlog fills to its cap: replays, tests and redeliveries are refused 409 with nothing queued, a live event is logged as dropped, and once it drains a full replay is taken again`,
  { timeout: 150_000 },
  async () => {
    const tenant = await createTenant({ rateLimit: 10_000 });
    await insertEvents(tenant, LIMIT, [(await tenant.insertProject()).id, (await tenant.insertProject()).id]);
    const receiver = await startReceiver();
    receiver.answerWith(() => "hang");
    const webhook = await registerWebhook(tenant.key, receiver);
    const replay = (after: number, until?: number) =>
      api(`/v1/webhooks/${webhook.id}/replay`, { key: tenant.key, method: "POST", body: { after, until } });

    // Exactly the cap is taken. Nothing settles while the receiver hangs (an attempt that times out is queued again).
    expect(expectSuccess(await replay(0), 202).data.queued).toBe(LIMIT);
    expectError(await replay(LIMIT - 1), 409, "conflict", { backlog: LIMIT, backlogLimit: LIMIT, queuedUpTo: LIMIT - 1 });
    expectError(await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }), 409, "conflict", {
      backlog: LIMIT,
      backlogLimit: LIMIT,
    });

    // A live event past the cap: logged in place of its first attempt, with no request made.
    await created(tenant.key, "/v1/projects", projectBody());
    const log = await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === LIMIT + 1, 40_000);
    const dropped = log.find((d) => d.changeVersion === LIMIT + 1)!;
    expect(dropped).toMatchObject({
      eventType: "project.created",
      attempt: 1,
      outcome: "failed",
      responseStatus: null,
      durationMs: null,
      nextRetryAt: null,
    });
    expect(dropped.error).toMatch(/^dropped: .*backlog/);
    // It can be redelivered once there is room, not before; the count is still the cap: none of the refusals queued anything.
    const redeliver = () => api(`/v1/webhooks/${webhook.id}/deliveries/${dropped.id}/redeliver`, { key: tenant.key, method: "POST" });
    expectError(await redeliver(), 409, "conflict", { backlog: LIMIT, backlogLimit: LIMIT });

    // The receiver recovers: every queued delivery succeeds, and each leaves the backlog as it settles.
    receiver.answerWith(() => 200);
    await waitForLogged(
      tenant.org.id,
      webhook.id,
      (attempts) => attempts.filter((a) => a.outcome === "succeeded").length === LIMIT,
      90_000,
    );
    const again = expectSuccess(await redeliver(), 202).data;
    await waitForAttempt(tenant.key, webhook.id, (d) => d.eventId === again.eventId && d.outcome === "succeeded", 30_000);
    expect(receiver.deliveries.filter((d) => d.event.changeVersion === LIMIT + 1 && d.answered === 200)).toHaveLength(1);
    // The backlog is empty again: it takes the cap's worth at once.
    expect(expectSuccess(await replay(0, LIMIT), 202).data.queued).toBe(LIMIT);
    // Turned off, the webhook's queue is dropped with its count: nothing is left sending after the test.
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { enabled: false });
  },
);
