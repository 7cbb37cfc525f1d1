import { serialize } from "node:v8";
import { expect, it } from "vitest";
import { eventOf, storedForm } from "../../realtime/stored-event.ts";
import { newJob } from "../../realtime/webhooks/queue.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { riskBody } from "../helpers/project-records.ts";
import { connectToRoom, useRoom, type RoomEvent } from "../helpers/realtime.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook } from "../webhooks/helpers.ts";

// Issue 45 row 9: the largest event against the Durable Object's value limit, 128 KiB (131,072
// bytes) as V8 serialises a value (node:v8's serialize is the serializer workerd's storage uses).
// A string with any character above U+00FF takes two bytes a character, and an update carries a
// changed field three times (data, changes.from, changes.to). The largest: a risk whose description
// and mitigation (10,000 characters each, the most the API takes) both change, in characters of
// three UTF-8 bytes (the body, 61 KB, is within the API's 64 KiB). As the event itself it is about
// 121 KB, 7% short of the limit; the room stores it without the changes' `to` (realtime/stored-event.ts).
// Partykit dev's workerd stores it either way (its storage has no value limit), so the size is
// measured here, and the room is shown to deliver the event as it was.

useRoom();

const VALUE_LIMIT = 128 * 1024;
/** What the stored forms must stay under: three quarters of the limit. */
const BOUND = 0.75 * VALUE_LIMIT;

it(
  "the largest event (a risk's description and mitigation both changed, at their maximum) is stored with a quarter of the value limit to spare, and delivered whole",
  { timeout: 60_000 },
  async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    await registerWebhook(tenant.key, receiver, { events: ["risk.updated"] });
    const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    try {
      const longText = (char: string) => char.repeat(10_000);
      const created = expectSuccess(
        await api("/v1/risks", {
          key: tenant.key,
          body: await riskBody(tenant, { title: "€".repeat(200), description: longText("€"), mitigation: longText("€") }),
        }),
        201,
      ).data as { id: string };
      const patch = { description: longText("₤"), mitigation: longText("₤") };
      expect(Buffer.byteLength(JSON.stringify(patch))).toBeLessThan(64 * 1024);
      expectSuccess(await api(`/v1/risks/${created.id}`, { key: tenant.key, method: "PATCH", body: patch }));

      const events = expectSuccess(await api("/v1/events?after=0&types=risk.updated", { key: tenant.key })).data as RoomEvent[];
      expect(events).toHaveLength(1);
      const event = events[0]!;
      const asItIs = serialize(event).length;
      const stored = serialize(storedForm(event)).length;
      const job = serialize(newJob("0190a5b2-0000-7000-8000-0000000000aa", event)[1]).length;
      console.log(
        `[event size] the largest event: ${asItIs} bytes as it is (${((1 - asItIs / VALUE_LIMIT) * 100).toFixed(0)}% short of 128 KiB); ` +
          `stored ${stored} bytes, a webhook job ${job} bytes (${((1 - job / VALUE_LIMIT) * 100).toFixed(0)}% to spare)`,
      );
      // Before: the room stored the event as it is, in its fan-out entry and each webhook's job.
      expect(asItIs).toBeGreaterThan(BOUND);
      expect(stored).toBeLessThan(BOUND);
      expect(job).toBeLessThan(BOUND);
      // The stored form gives back the event, byte for byte.
      expect(JSON.stringify(eventOf(storedForm(event)))).toBe(JSON.stringify(event));

      // The room stored and delivered it: the webhook's body and the socket's event are the event.
      await receiver.waitForCount(1, 30_000);
      expect(receiver.deliveries[0]!.verified).toBe(true);
      expect(receiver.deliveries[0]!.event).toEqual(event);
      const [received] = (await socket.waitForEvents(2, 30_000)).filter((e) => e.type === "risk.updated");
      expect(received).toEqual(event);
    } finally {
      socket.close();
      await receiver.stop();
    }
  },
);
