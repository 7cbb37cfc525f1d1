import { randomBytes, randomUUID } from "node:crypto";
import { expect } from "vitest";
import { uuidv7 } from "../../domain/ids.ts";
import type { DeliveryRecord } from "../../services/webhooks.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import type { Tenant } from "../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";

// Shared by the webhook test files: registering a receiver through the API, and reading a
// webhook's delivery log.
//
// A check that a webhook was sent nothing ends on a sentinel, never after a pause: a later
// delivery the test makes sure must happen, whose attempt in the delivery log implies the
// unwanted one would already have reached the receiver. Why the log and not the receiver
// (realtime/webhooks/queue.ts, dispatcher.ts): each webhook's jobs are queued by due time, then changeVersion, and a
// drain hands them out in that order to up to 6 concurrent requests, so a receiver may get two
// deliveries in either order. But a drain takes a job only after every due job queued before it
// (in an earlier drain or in this one), and reports its attempts to the API only once every
// request it made has been answered (or has timed out). So once the sentinel's attempt is in the
// log, every job queued before it and due by then has been attempted, and has reached the
// receiver if it was ever going to. A drain reads every live webhook's queue, so this holds
// across the webhooks of one organisation too: a job the room would wrongly have made for
// another webhook in the same fan-out as the sentinel (or earlier) is attempted in the same drain
// (or earlier). A retry queued before the sentinel but due after it is not covered: such tests
// wait until the retry is due before they make the sentinel.

export type { DeliveryRecord };

/** POST /v1/webhooks for the receiver with `key`; the receiver then verifies with the secret. */
export async function registerWebhook(key: string, receiver: Receiver, fields: Record<string, unknown> = {}) {
  const created = expectSuccess(await api("/v1/webhooks", { key, body: { url: receiver.url, ...fields } }), 201).data;
  expect(created.secret).toMatch(/^whsec_/);
  receiver.useSecret(created.secret);
  return created as { id: string; secret: string; scopes: string[]; events: string[]; enabled: boolean; version: number };
}

/** Two webhooks of the key's organisation: one whose receiver never answers, one that answers at once. */
export async function stalledAndHealthy(
  key: string,
): Promise<{ stalled: Receiver; healthy: Receiver; stalledId: string; healthyId: string }> {
  const stalled = await startReceiver("stalled");
  stalled.answerWith(() => "hang");
  const healthy = await startReceiver("healthy");
  const stalledId = (await registerWebhook(key, stalled)).id;
  const healthyId = (await registerWebhook(key, healthy)).id;
  return { stalled, healthy, stalledId, healthyId };
}

/** The webhook's delivery attempts (every page), oldest first. */
export async function deliveryLog(key: string, webhookId: string): Promise<DeliveryRecord[]> {
  const newestFirst: DeliveryRecord[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: unknown; nextCursor?: string | null } = expectSuccess(
      await api(`/v1/webhooks/${webhookId}/deliveries?limit=200${cursor ? `&cursor=${cursor}` : ""}`, { key }),
    );
    newestFirst.push(...(page.data as DeliveryRecord[]));
    cursor = page.nextCursor ?? null;
  } while (cursor);
  return newestFirst.reverse();
}

/** Polls the delivery log until `done` holds (the room reports attempts just after making them). */
export async function waitForLog(
  key: string,
  webhookId: string,
  done: (log: DeliveryRecord[]) => boolean,
  timeoutMs = 10_000,
): Promise<DeliveryRecord[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await deliveryLog(key, webhookId);
    if (done(log)) return log;
    if (Date.now() > deadline)
      throw new Error(
        `delivery log of ${webhookId} after ${timeoutMs} ms: ${JSON.stringify(log.map((d) => [d.eventType, d.attempt, d.outcome, d.responseStatus]))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The sentinel of a negative check (see the top of this file): waits until the webhook's delivery
 * log shows an attempt that `match`es, and answers the log.
 */
export function waitForAttempt(
  key: string,
  webhookId: string,
  match: (attempt: DeliveryRecord) => boolean,
  timeoutMs = 10_000,
): Promise<DeliveryRecord[]> {
  return waitForLog(key, webhookId, (log) => log.some(match), timeoutMs);
}

/** One attempt of the delivery log, read from the database (a burst's log is thousands of rows). */
export interface LoggedAttempt {
  webhookId: string;
  eventId: string;
  changeVersion: number | null;
  attempt: number;
  outcome: "succeeded" | "retrying" | "failed";
}

/** The delivery attempts of the organisation's webhooks (or of one of them), as the room reported them. */
export async function loggedAttempts(orgId: string, webhookId?: string): Promise<LoggedAttempt[]> {
  const rows = await query<LoggedAttempt & { changeVersion: string | null }>(
    `select webhook_id as "webhookId", event_id as "eventId", change_version as "changeVersion", attempt, outcome
       from webhook_deliveries where org_id = $1 and ($2::uuid is null or webhook_id = $2::uuid) order by created_at, id`,
    [orgId, webhookId ?? null],
  );
  return rows.map((row) => ({ ...row, changeVersion: row.changeVersion === null ? null : Number(row.changeVersion) }));
}

/** Polls the logged attempts (database) until `done` holds: the sentinel of a burst. */
export async function waitForLogged(
  orgId: string,
  webhookId: string | undefined,
  done: (attempts: LoggedAttempt[]) => boolean,
  timeoutMs = 30_000,
): Promise<LoggedAttempt[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const attempts = await loggedAttempts(orgId, webhookId);
    if (done(attempts)) return attempts;
    if (Date.now() > deadline)
      throw new Error(
        `delivery log of ${webhookId ?? orgId} after ${timeoutMs} ms: ${attempts.length} attempts, the last ${JSON.stringify(attempts.slice(-5))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The events whose latest attempt says "retrying": a retry of each is still queued, to be sent
 * later than any sentinel. Empty means the log's events will never be sent again.
 */
export function retriesQueued(attempts: LoggedAttempt[]): string[] {
  const latest = new Map<string, LoggedAttempt>();
  for (const attempt of attempts) {
    const key = `${attempt.webhookId}/${attempt.eventId}`;
    if ((latest.get(key)?.attempt ?? 0) < attempt.attempt) latest.set(key, attempt);
  }
  return [...latest.entries()].filter(([, attempt]) => attempt.outcome === "retrying").map(([key]) => key);
}

/** Resolves once the clock has passed `at` (ms): a retry the room scheduled for then is due. */
export async function untilPast(at: number): Promise<void> {
  const wait = at - Date.now() + 50;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/**
 * Events written straight to the outbox (task.updated, under tasks.read), `n` of them after the
 * organisation's current changeVersion, alternating between two projects: a range to replay.
 */
export async function insertEvents(tenant: Tenant, n: number, projects: [string, string]): Promise<void> {
  await query(
    `with bump as (update organisations set change_version = change_version + $2 where id = $1 returning change_version)
     insert into events (id, org_id, change_version, type, scope, data, actor, published_at)
     select gen_random_uuid(), $1, bump.change_version - $2 + i, 'task.updated', 'tasks.read',
            jsonb_build_object('id', gen_random_uuid(), 'projectId', ($3::text[])[1 + i % 2], 'n', i), null, now()
       from bump, generate_series(1, $2) as i`,
    [tenant.org.id, n, projects],
  );
}

/** A webhook row straight in the database (no room involved): for refusal tests. */
export async function insertWebhook(tenant: Tenant): Promise<string> {
  const id = uuidv7();
  await query("insert into webhooks (id, org_id, scopes, url, secret) values ($1, $2, $3, $4, $5)", [
    id,
    tenant.org.id,
    ["tasks.read"],
    "https://example.com/hooks/opsroom",
    `whsec_${randomBytes(24).toString("base64")}`,
  ]);
  return id;
}

/** A delivery attempt row of the webhook, as the room would have reported it. */
export async function insertDelivery(tenant: Tenant, webhookId: string, createdAt = new Date()): Promise<string> {
  const id = uuidv7();
  await query(
    `insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type, attempt, outcome, response_status, duration_ms, created_at)
     values ($1, $2, $3, $4, 'webhook.test', 1, 'succeeded', 200, 12, $5)`,
    [id, tenant.org.id, webhookId, randomUUID(), createdAt],
  );
  return id;
}
