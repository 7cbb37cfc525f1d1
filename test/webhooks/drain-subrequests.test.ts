import { expect, inject, it } from "vitest";
import { createTenant } from "../helpers/fixtures.ts";
import { fakeEvent, postToRoom, useOwnRoom } from "../helpers/realtime.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForLog } from "./helpers.ts";

// Issue 45 row 2, the room: an alarm is an invocation, and Cloudflare counts every fetch() it makes
// (50 on Workers Free, 1,000 on Paid); partykit dev counts none. The room's drain sends deliveries
// for 5 s, so against a fast receiver one alarm run made hundreds: past the figure every delivery
// failed with "Too many subrequests." and was retried 5 s later (and the reports of the attempts
// could not reach the API). This file's room of its own enforces the Free plan's 50
// (MODEL_WORKERS_LIMITS, SUBREQUESTS_PER_INVOCATION=50, realtime/subrequests.ts): the drain stops
// within the count and the alarm comes straight back for the rest, each delivery made once, at its
// first attempt.

const EVENTS = 300;
const roomUrl = useOwnRoom(["SUBREQUESTS_PER_INVOCATION=50"], "free-plan");

it(
  `${EVENTS} events to a fast receiver under the Free plan's 50 subrequests: each delivered once, at its first attempt`,
  { timeout: 120_000 },
  async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const events = Array.from({ length: EVENTS }, (_, i) => fakeEvent(tenant.org.id, i + 1));
    expect((await postToRoom(tenant.org.id, { events }, inject("realtimeSecret"), roomUrl())).status).toBe(200);

    await receiver.waitForCount(EVENTS, 90_000);
    const log = await waitForLog(tenant.key, webhook.id, (l) => l.length >= EVENTS, 30_000);
    // Before: the deliveries past the 50th of a run failed ("could not connect: Error: Too many subrequests.").
    expect(log.filter((attempt) => attempt.outcome !== "succeeded").map((attempt) => attempt.error)).toEqual([]);
    expect(log.every((attempt) => attempt.attempt === 1)).toBe(true);
    expect(new Set(log.map((attempt) => attempt.eventId)).size).toBe(EVENTS);
    expect(new Set(receiver.deliveries.map((delivery) => delivery.event.id)).size).toBe(EVENTS);
    expect(receiver.deliveries.filter((delivery) => !delivery.verified)).toEqual([]);
    await receiver.stop();
  },
);
