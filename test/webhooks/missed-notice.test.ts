import { expect, inject, it } from "vitest";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { fakeEvent, postToRoom, useOwnRoom } from "../helpers/realtime.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForAttempt } from "./helpers.ts";

// The API tells the room of every webhook change before it answers; when that notice fails (the
// room busy past the API's timeout), the room's copy must not stay stale for as long as the room
// is awake: it loads the webhooks again once its copy is older than the room var
// WEBHOOK_TARGETS_MAX_AGE_MS (a minute unless set, realtime/webhooks/targets.ts).
//
// A room of its own (as test/webhooks/drain-subrequests.test.ts), with an age of MAX_AGE_MS, so the
// case waits seconds rather than the minute, and the shared room keeps its default (a shorter age
// there would let other webhook tests pass by the age's reload where they must pass by the notice).
// The API publishes to the shared room, so the events are posted to this one as the Worker posts
// them, and this room never hears of the webhooks' changes at all: every notice is missed.

/** Long enough for the room to fan out a second event on the copy it loaded for the first. */
const MAX_AGE_MS = 10_000;
const roomUrl = useOwnRoom([`WEBHOOK_TARGETS_MAX_AGE_MS=${MAX_AGE_MS}`], "missed-notice");

it(
  "a room that missed the notice of a change loads the webhooks again once its copy is too old",
  { timeout: MAX_AGE_MS + 60_000 },
  async () => {
    const tenant = await createTenant();
    const missed = await startReceiver("missed");
    const witness = await startReceiver("witness");
    const missedHook = await registerWebhook(tenant.key, missed);
    const witnessHook = await registerWebhook(tenant.key, witness);
    const publish = async (changeVersion: number) =>
      expect(
        (await postToRoom(tenant.org.id, { events: [fakeEvent(tenant.org.id, changeVersion)] }, inject("realtimeSecret"), roomUrl()))
          .status,
      ).toBe(200);

    // Event 1 wakes the room, which loads both webhooks before it fans the event out.
    await publish(1);
    await Promise.all([missed.waitForCount(1), witness.waitForCount(1)]);
    const loaded = Date.now();
    // Turned off behind the API's back: the room hears nothing, as when the notice fails.
    await query("update webhooks set enabled = false, disabled_reason = 'turned off in the database' where id = $1", [missedHook.id]);

    // Within the age the room's copy still has it on, so event 2 still goes out: the notice really was missed.
    await publish(2);
    await Promise.all([missed.waitForCount(2), witness.waitForCount(2)]);

    // Once the copy is older than the age, the next fan-out loads the webhooks first; the witness's
    // logged attempt at event 3 is the sentinel (the same fan-out would have made a job for the missed one).
    await new Promise((resolve) => setTimeout(resolve, loaded + MAX_AGE_MS + 1_000 - Date.now()));
    await publish(3);
    await waitForAttempt(tenant.key, witnessHook.id, (d) => d.changeVersion === 3);
    expect(missed.deliveries.map((d) => d.event.changeVersion)).toEqual([1, 2]);
    expect(witness.deliveries.map((d) => d.event.changeVersion).sort()).toEqual([1, 2, 3]);
    await Promise.all([missed.stop(), witness.stop()]);
  },
);
