import { describe, expect, it } from "vitest";
import { createTenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { created, taskBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForLog } from "./helpers.ts";

// Deliveries never follow redirects: a public receiver could otherwise bounce the signed POST to
// an address the URL rules refuse (an internal service). A 3xx is an answer like any other
// non-2xx: logged with its status and retried, and the Location is never requested.

useRoom();

describe("a receiver that answers with a redirect", () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`${status} to another receiver: the attempt is logged as ${status} and retried; the other receiver gets nothing`, async () => {
      const tenant = await createTenant();
      const elsewhere = await startReceiver("elsewhere");
      const bouncer = await startReceiver("bouncer");
      bouncer.answerWith(() => ({ status, headers: { location: elsewhere.url } }));
      const webhook = await registerWebhook(tenant.key, bouncer);
      await created(tenant.key, "/v1/tasks", await taskBody(tenant));

      // The log entry is written after the attempt's request has finished: a followed redirect
      // would have reached `elsewhere` before it (and the attempt would record its 200).
      const [attempt] = await waitForLog(tenant.key, webhook.id, (log) => log.length >= 1);
      expect(attempt).toMatchObject({
        eventType: "task.created",
        attempt: 1,
        outcome: "retrying",
        responseStatus: status,
        nextRetryAt: expect.any(String),
      });
      expect(bouncer.deliveries).toHaveLength(1);
      expect(elsewhere.deliveries).toHaveLength(0);
    });
  }
});
