import { signWebhook } from "../../domain/crypto/webhook-signature.ts";
import { heldConnections, type HeldConnections } from "../connections.ts";
import type { DeliveryAttempt, WebhookTarget } from "../protocol.ts";
import { eventOf } from "../stored-event.ts";
import type { Job } from "./queue.ts";

// One delivery attempt: the event as a signed POST (Standard Webhooks: webhook-id, -timestamp,
// -signature, under both secrets during a rotation's overlap), 10 s to answer once it holds a
// connection (../connections.ts: a request queued for one is not yet timed), no redirect
// followed (a receiver could otherwise bounce the signed request to an address the URL rules
// refuse). 2xx is success; 410 Gone turns the webhook off; anything else is tried again after
// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then given up.

export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const TIMEOUT_MS = 10_000;
const EXCERPT_LENGTH = 200;

export interface Answer {
  /** The receiver's status; null when it did not answer. */
  status: number | null;
  /** Why there was no answer (a timeout, a refused connection). */
  error: string | null;
  /** The first characters of what it answered. */
  excerpt: string | null;
  startedAt: number;
  durationMs: number;
}

/** The secrets a delivery made `at` is signed with: the current one, and the previous one until its overlap ends. */
export function signingSecrets(target: WebhookTarget, at: number): string[] {
  const { previousSecret, previousSecretExpiresAt } = target;
  return previousSecret && previousSecretExpiresAt && at < Date.parse(previousSecretExpiresAt)
    ? [target.secret, previousSecret]
    : [target.secret];
}

/** `connections`: the room's (the drain's requests share them); default a set of its own. */
export async function send(target: WebhookTarget, job: Job, connections: HeldConnections = heldConnections(fetch)): Promise<Answer> {
  const body = JSON.stringify(eventOf(job.event));
  const startedAt = Date.now();
  let status: number | null = null;
  let error: string | null = null;
  let excerpt: string | null = null;
  try {
    const response = await connections.fetch(
      target.url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "opsroom-webhooks/1",
          ...(await signWebhook(signingSecrets(target, startedAt), job.event.id, body)),
        },
        body,
        redirect: "manual",
      },
      TIMEOUT_MS,
    );
    status = response.status;
    excerpt = (await response.text().catch(() => "")).slice(0, EXCERPT_LENGTH) || null;
  } catch (cause) {
    error =
      cause instanceof Error && cause.name === "TimeoutError"
        ? "timed out after 10 s"
        : `could not connect: ${String(cause).slice(0, 150)}`;
  }
  return { status, error, excerpt, startedAt, durationMs: Date.now() - startedAt };
}

export const succeeded = (answer: Answer) => answer.status !== null && answer.status >= 200 && answer.status < 300;
export const gone = (answer: Answer) => answer.status === 410;

/** When the attempt after this one is due, or null when there is none (success, 410, or out of retries). */
export function nextRetryAt(job: Job, answer: Answer): number | null {
  const delay = RETRY_DELAYS_MS[job.attempt - 1];
  return succeeded(answer) || gone(answer) || delay === undefined ? null : answer.startedAt + delay;
}

/** What the delivery log keeps of every attempt of the job, whatever became of it. */
const attemptOf = (job: Job) => ({
  id: crypto.randomUUID(),
  webhookId: job.webhookId,
  eventId: job.event.id,
  eventType: job.event.type,
  changeVersion: job.event.changeVersion || null,
  attempt: job.attempt,
});

/** The attempt as the delivery log keeps it. `retryAt` null: no further attempt. */
export function reportOf(job: Job, answer: Answer, retryAt: number | null): DeliveryAttempt {
  const ok = succeeded(answer);
  return {
    ...attemptOf(job),
    outcome: ok ? "succeeded" : retryAt !== null ? "retrying" : "failed",
    responseStatus: answer.status,
    durationMs: answer.durationMs,
    error:
      answer.error ??
      (ok ? null : gone(answer) ? "the receiver answered 410 Gone; the webhook is now disabled" : `the receiver answered ${answer.status}`),
    responseExcerpt: answer.excerpt,
    nextRetryAt: retryAt === null ? null : new Date(retryAt).toISOString(),
  };
}

/**
 * A job the webhook's backlog had no room for (backlog.ts), logged in place of its first attempt:
 * failed, with no request made (no status, no duration), so that it can be redelivered or
 * replayed once the receiver catches up. Never dropped silently.
 */
export function droppedReport(job: Job, backlog: number): DeliveryAttempt {
  return {
    ...attemptOf(job),
    outcome: "failed",
    responseStatus: null,
    durationMs: null,
    error: `dropped: the webhook's backlog is full (${backlog} deliveries queued)`,
    responseExcerpt: null,
    nextRetryAt: null,
  };
}
