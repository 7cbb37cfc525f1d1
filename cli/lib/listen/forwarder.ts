import { generateWebhookSecret, signWebhook } from "../../../domain/crypto/webhook-signature.ts";
import type { OpsEvent } from "../../../domain/events.ts";

// `--forward-to`: each event POSTed to a local URL exactly as a registered webhook would receive it
// (realtime/webhooks/delivery.ts): the event JSON as the body, signed per Standard Webhooks with a secret made
// for this run, 10 s to answer. Unlike a webhook there is no retry: the answer is printed, like
// `stripe listen`, and the developer fixes the handler and triggers the event again.

const TIMEOUT_MS = 10_000;

export type ForwardOutcome = { status: number; statusText: string; ms: number } | { error: string; ms: number };

export interface Forwarder {
  url: string;
  /** whsec_...: what the local handler verifies with. */
  secret: string;
  forward(event: OpsEvent): Promise<ForwardOutcome>;
}

export function createForwarder(url: string, secret = generateWebhookSecret()): Forwarder {
  return {
    url,
    secret,
    async forward(event) {
      const body = JSON.stringify(event);
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "opsroom-listen/1", ...(await signWebhook(secret, event.id, body)) },
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        await response.body?.cancel();
        return { status: response.status, statusText: response.statusText, ms: ms() };
      } catch (error) {
        const reason = error instanceof Error && error.name === "TimeoutError" ? "timed out after 10 s" : describeFetchError(error);
        return { error: reason, ms: ms() };
      }
    },
  };
}

/** fetch's "fetch failed" hides the useful part (ECONNREFUSED...) in its cause. */
function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? String(error);
}
