import { expect, it } from "vitest";
import { TARGETS_MAX_AGE_MS } from "../../realtime/webhooks/targets.ts";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { created, projectBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForAttempt } from "./helpers.ts";

// The API tells the room of every webhook change before it answers; when that notice fails (the
// room busy past the API's timeout), the room's copy must not stay stale for as long as the room
// is awake: it loads the webhooks again once its copy is TARGETS_MAX_AGE_MS old. A file of its own,
// because the case waits that long and runs beside the others.

useRoom();

it(
  "a room that missed the notice of a change loads the webhooks again once its copy is a minute old",
  { timeout: TARGETS_MAX_AGE_MS + 60_000 },
  async () => {
    const tenant = await createTenant();
    const missed = await startReceiver("missed");
    const witness = await startReceiver("witness");
    const missedHook = await registerWebhook(tenant.key, missed);
    const witnessHook = await registerWebhook(tenant.key, witness);
    const loaded = Date.now();
    // Turned off behind the API's back: the room hears nothing, as when the notice fails.
    await query("update webhooks set enabled = false, disabled_reason = 'turned off in the database' where id = $1", [missedHook.id]);

    // The room's copy still has it on, so event 1 still goes out: the notice really was missed.
    await created(tenant.key, "/v1/projects", projectBody());
    await waitForAttempt(tenant.key, witnessHook.id, (d) => d.changeVersion === 1);
    expect(missed.deliveries.map((d) => d.event.changeVersion)).toEqual([1]);

    // Once the copy is older than the limit, the next fan-out loads the webhooks first; the witness's
    // attempt at event 2 is the sentinel (the same fan-out would have made a job for the missed one).
    await new Promise((resolve) => setTimeout(resolve, loaded + TARGETS_MAX_AGE_MS + 1_000 - Date.now()));
    await created(tenant.key, "/v1/projects", projectBody());
    await waitForAttempt(tenant.key, witnessHook.id, (d) => d.changeVersion === 2);
    expect(missed.deliveries.map((d) => d.event.changeVersion)).toEqual([1]);
    expect(witness.deliveries.map((d) => d.event.changeVersion).sort()).toEqual([1, 2]);
  },
);
