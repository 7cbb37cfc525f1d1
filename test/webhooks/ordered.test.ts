import { describe, expect, it } from "vitest";
import { createTenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { created, patched, projectBody } from "../helpers/resources.ts";
import { startReceiver, type Delivery, type Receiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForLog } from "./helpers.ts";

// `ordered: true` (docs/api.md "Webhooks"): event N+1 is not sent before N is delivered or finally
// given up. The receiver fails the first attempt of event 1 (500); its retry comes 5 s later.

useRoom();

/** A receiver that answers 500 to the first request carrying `changeVersion`, 200 to everything else. */
async function failingOnce(changeVersion: number): Promise<Receiver> {
  const receiver = await startReceiver();
  let failed = false;
  receiver.answerWith((_, delivery) => {
    if (failed || delivery.event.changeVersion !== changeVersion) return 200;
    failed = true;
    return 500;
  });
  return receiver;
}

const sequence = (deliveries: Delivery[]) => deliveries.map((d) => [d.event.changeVersion, d.answered]);

describe("ordered delivery", () => {
  it("event 2 is not received until event 1, failed once, has succeeded", { timeout: 30_000 }, async () => {
    const tenant = await createTenant();
    const receiver = await failingOnce(1);
    const webhook = await registerWebhook(tenant.key, receiver, { ordered: true });
    expect(webhook).toMatchObject({ ordered: true });
    for (let i = 0; i < 3; i++) await created(tenant.key, "/v1/projects", projectBody());
    const deliveries = await receiver.waitForCount(4, 20_000);
    expect(sequence(deliveries)).toEqual([
      [1, 500],
      [1, 200],
      [2, 200],
      [3, 200],
    ]);
    // Event 2 waited for the retry of 1, 5 s after its first attempt.
    expect(deliveries[1]!.at - deliveries[0]!.at).toBeGreaterThan(4_500);
  });

  it("unordered (the default): events 2 and 3 go while 1 waits for its retry", { timeout: 30_000 }, async () => {
    const tenant = await createTenant();
    const receiver = await failingOnce(1);
    await registerWebhook(tenant.key, receiver);
    for (let i = 0; i < 3; i++) await created(tenant.key, "/v1/projects", projectBody());
    const deliveries = await receiver.waitForCount(4, 20_000);
    expect(sequence(deliveries.slice(-1))).toEqual([[1, 200]]);
    expect(sequence(deliveries.slice(0, 3)).sort()).toEqual([
      [1, 500],
      [2, 200],
      [3, 200],
    ]);
  });

  it("no longer ordered: the rest go at once, and the waiting event still keeps its retry time", { timeout: 30_000 }, async () => {
    const tenant = await createTenant();
    const receiver = await failingOnce(1);
    const webhook = await registerWebhook(tenant.key, receiver, { ordered: true });
    for (let i = 0; i < 3; i++) await created(tenant.key, "/v1/projects", projectBody());
    await waitForLog(tenant.key, webhook.id, (log) => log.some((d) => d.changeVersion === 1 && d.outcome === "retrying"));
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { ordered: false });
    // A fourth event wakes the room: 2, 3 and 4 are due, 1 only when its retry is.
    await created(tenant.key, "/v1/projects", projectBody());
    const deliveries = await receiver.waitForCount(5, 20_000);
    expect(sequence(deliveries.slice(0, 1))).toEqual([[1, 500]]);
    expect(sequence(deliveries.slice(1, 4)).sort()).toEqual([
      [2, 200],
      [3, 200],
      [4, 200],
    ]);
    expect(sequence(deliveries.slice(4))).toEqual([[1, 200]]);
    expect(deliveries[4]!.at - deliveries[0]!.at).toBeGreaterThan(4_500);
  });
});
