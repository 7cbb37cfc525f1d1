import { RULES } from "../db/statements/engine/rules.ts";
import type { UpdateOutcome } from "../db/statements/engine/update.ts";
import {
  deliveredEvent,
  listDeliveries,
  recordDeliveries,
  type DeliveryAttempt,
  type DeliveryFilter,
} from "../db/statements/webhook-deliveries.ts";
import * as statements from "../db/statements/webhooks.ts";
import type { WebhookRecord } from "../db/statements/webhooks.ts";
import { NO_REQUEST } from "../domain/audit.ts";
import { generateWebhookSecret } from "../domain/crypto/webhook-signature.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { SYSTEM_ACTOR, type OpsEvent } from "../domain/events.ts";
import { uuidv7 } from "../domain/ids.ts";
import type { PageRequest } from "../domain/paging.ts";
import { firstMissingScope } from "../domain/scopes.ts";
import { checkWebhookUrl } from "../domain/webhook-urls.ts";
import { QueuedAnswerSchema, type QueuedAnswer, type RoomMessage } from "../realtime/protocol.ts";
import { guarded } from "./constraint-errors.ts";
import type { Call, ServiceContext, SystemContext } from "./context.ts";
import { settleCaller, settleCreate, settleDelete, settleUpdate, type WriteResult } from "./settle.ts";

// Webhooks: registered through the API, delivered by the organisation's room. A webhook carries
// the read scopes of the key that registered it; whoever changes it, tests it, redelivers to it
// or reads its deliveries could otherwise see events beyond their own scopes (point it elsewhere
// and redeliver), so they must hold every scope it carries. Deleting it discloses nothing and
// needs webhooks.manage only. Each change is told to the room before the answer, so the caller's
// next write is already delivered under the new settings.

export type { WebhookRecord } from "../db/statements/webhooks.ts";
export type { DeliveryAttempt, DeliveryFilter, DeliveryRecord } from "../db/statements/webhook-deliveries.ts";

/** Where a webhook may point: https to the public internet, or loopback where local receivers are allowed. */
export interface UrlPolicy {
  allowLoopback: boolean;
}

const scopes = { read: "webhooks.read", manage: "webhooks.manage" } as const;

/** 403 naming the first scope the webhook carries that the caller does not hold. */
function lacksScopeOf(webhookScopes: string[], callerScopes: readonly string[], doing: string): DomainError | null {
  const missing = firstMissingScope(webhookScopes, callerScopes);
  return missing
    ? new DomainError("insufficient_scope", `this webhook sees events under ${missing}; ${doing} needs that scope too`, { scope: missing })
    : null;
}

export function assertHoldsScopesOf(webhookScopes: string[], callerScopes: readonly string[], doing: string): void {
  const refusal = lacksScopeOf(webhookScopes, callerScopes, doing);
  if (refusal) throw refusal;
}

/**
 * The room keeps a copy of the organisation's webhooks: it reloads them before the answer goes out.
 * A room that cannot be told (down) loads them afresh when it next wakes; the change is committed
 * either way.
 */
async function reloadRoom(ctx: ServiceContext, orgId: string): Promise<void> {
  await ctx.rooms
    .tell(orgId, { webhooksChanged: true })
    .catch((error: unknown) =>
      console.warn(JSON.stringify({ level: "warn", message: "the room could not reload its webhooks", orgId, cause: String(error) })),
    );
}

export async function listWebhooks({ ctx, input }: Call<{ page: PageRequest }>) {
  const outcome = await statements.listWebhooks(ctx.db, ctx.actor, input.page);
  settleCaller(outcome.caller, ctx, scopes.read);
  return { records: outcome.records, count: outcome.count, hasMore: outcome.hasMore, end: outcome.end };
}

/** A webhook's settings (never its secret): webhooks.read. */
export async function getWebhook({ ctx, input }: Call<{ id: string }>) {
  const outcome = await statements.getWebhook(ctx.db, ctx.actor, input.id, scopes.read);
  settleCaller(outcome.caller, ctx, scopes.read);
  if (!outcome.record) throw notFound("webhook");
  return outcome.record;
}

/** The answer carries the signing secret, this once (and in an Idempotency-Key replay). */
export async function createWebhook({
  ctx,
  input,
}: Call<statements.WebhookSettings & { url: string; policy: UrlPolicy }>): Promise<WriteResult<WebhookRecord & { secret: string }>> {
  const { policy, ...settings } = input;
  const url = checkWebhookUrl(input.url, policy.allowLoopback);
  const secret = generateWebhookSecret();
  const outcome = await guarded(
    statements.createWebhook(
      ctx.db,
      ctx.actor,
      { ...settings, url, events: input.events ?? [], secret },
      ctx.request ?? NO_REQUEST,
      ctx.idempotency,
    ),
  );
  const result = settleCreate(outcome, { ctx, scope: scopes.manage, noun: "webhook", idempotency: ctx.idempotency });
  if (result.replayed) return result as WriteResult<WebhookRecord & { secret: string }>;
  await reloadRoom(ctx, result.record.orgId);
  return { ...result, record: { ...result.record, secret } };
}

/** A change to a webhook, settled (authorisation before its version and state) and told to the room. */
async function settleChange(
  ctx: ServiceContext,
  outcome: UpdateOutcome<WebhookRecord, typeof RULES.scopes_held | typeof RULES.installation_live>,
  doing: string,
): Promise<WriteResult<WebhookRecord>> {
  settleCaller(outcome.caller, ctx, scopes.manage);
  if (outcome.before) assertHoldsScopesOf(outcome.before.scopes, outcome.caller.scopes, doing);
  const result = settleUpdate(outcome, {
    ctx,
    scope: scopes.manage,
    noun: "webhook",
    rules: {
      [RULES.scopes_held]: (before) => lacksScopeOf(before.scopes, outcome.caller.scopes, doing)!,
      [RULES.installation_live]: () =>
        new DomainError(
          "conflict",
          "the application that registered this webhook was uninstalled; it turns back on only once the application is installed again",
          {
            field: "enabled",
          },
        ),
    },
  });
  await reloadRoom(ctx, result.record.orgId);
  return result;
}

export async function updateWebhook({
  ctx,
  input,
}: Call<{ id: string; patch: statements.WebhookChange; ifMatch: number | null; policy: UrlPolicy }>) {
  const patch =
    input.patch.url === undefined ? input.patch : { ...input.patch, url: checkWebhookUrl(input.patch.url, input.policy.allowLoopback) };
  return settleChange(
    ctx,
    await guarded(statements.updateWebhook(ctx.db, ctx.actor, input.id, patch, input.ifMatch, ctx.request ?? NO_REQUEST)),
    "changing it",
  );
}

/**
 * A new signing secret, answered this once; deliveries carry signatures under both the new and
 * the old one for `overlapSeconds`, so receivers can switch without losing a request.
 */
export async function rotateWebhookSecret({ ctx, input }: Call<{ id: string; overlapSeconds: number; ifMatch: number | null }>) {
  const secret = generateWebhookSecret();
  const outcome = await guarded(
    statements.rotateWebhookSecret(
      ctx.db,
      ctx.actor,
      input.id,
      { secret, overlapSeconds: input.overlapSeconds },
      input.ifMatch,
      ctx.request ?? NO_REQUEST,
    ),
  );
  const result = await settleChange(ctx, outcome, "rotating its secret");
  return { ...result, record: { ...result.record, secret } };
}

/** Removing a webhook drops what is queued for it; it needs webhooks.manage only. */
export async function deleteWebhook({ ctx, input }: Call<{ id: string; ifMatch: number | null }>) {
  const result = settleDelete(
    await guarded(statements.deleteWebhook(ctx.db, ctx.actor, input.id, input.ifMatch, ctx.request ?? NO_REQUEST), { deleting: true }),
    {
      ctx,
      scope: scopes.manage,
      noun: "webhook",
    },
  );
  await reloadRoom(ctx, result.record.orgId);
  return result;
}

/** A webhook's delivery attempts, newest first: webhooks.read and every scope the webhook carries. */
export async function webhookDeliveries({ ctx, input }: Call<{ webhookId: string; page: PageRequest; filter: DeliveryFilter }>) {
  const outcome = await listDeliveries(ctx.db, ctx.actor, input.webhookId, input.page, input.filter);
  settleCaller(outcome.caller, ctx, scopes.read);
  if (!outcome.webhookScopes) throw notFound("webhook");
  assertHoldsScopesOf(outcome.webhookScopes, outcome.caller.scopes, "reading its deliveries");
  return { records: outcome.records, hasMore: outcome.hasMore };
}

/** The webhook a test or a redelivery goes to: webhooks.manage and every scope it carries. */
async function webhookToActOn(ctx: ServiceContext, id: string): Promise<WebhookRecord> {
  const outcome = await statements.getWebhook(ctx.db, ctx.actor, id, scopes.manage);
  settleCaller(outcome.caller, ctx, scopes.manage);
  if (!outcome.record) throw notFound("webhook");
  assertHoldsScopesOf(outcome.record.scopes, outcome.caller.scopes, "acting on it");
  return outcome.record;
}

/** A webhook.test event: it changes nothing, so it has no place in the organisation's sequence. */
function testEvent(webhook: WebhookRecord): OpsEvent {
  return {
    id: uuidv7(),
    type: "webhook.test",
    orgId: webhook.orgId,
    changeVersion: 0,
    occurredAt: new Date().toISOString(),
    data: { webhookId: webhook.id, message: "This is a test delivery from opsroom." },
    actor: SYSTEM_ACTOR,
    changes: null,
    batchId: null,
  };
}

const webhookOff = () => new DomainError("conflict", 'the webhook is disabled; turn it on with PATCH { "enabled": true } first');

/** The room delivers nothing to a webhook that is off: say so rather than queue what never goes. */
export function assertEnabled(webhook: WebhookRecord): void {
  if (!webhook.enabled) throw webhookOff();
}

/**
 * Hands deliveries for one webhook to the room, which queues all of them like any other, or none:
 * 409 when the webhook's backlog would pass its limit (docs/api.md "Webhooks"), or when the room
 * reloaded its copy of the webhooks and found this one off or gone (changed meanwhile).
 */
export async function handToRoom(ctx: ServiceContext, orgId: string, message: RoomMessage): Promise<void> {
  let answer: QueuedAnswer;
  try {
    answer = QueuedAnswerSchema.parse(await ctx.rooms.tell(orgId, message));
  } catch {
    throw new DomainError("unavailable", "the realtime room could not take the delivery; retry shortly");
  }
  if (answer.queued) return;
  if (answer.backlog === undefined) throw webhookOff();
  throw new DomainError(
    "conflict",
    `the webhook has ${answer.backlog} deliveries queued, and this would take it past its limit of ${answer.backlogLimit}: wait until its receiver has taken them (see its deliveries)`,
    { backlog: answer.backlog, backlogLimit: answer.backlogLimit },
  );
}

/** Hands one event to the room for one webhook. */
async function queueDelivery(ctx: ServiceContext, webhook: WebhookRecord, event: OpsEvent) {
  assertEnabled(webhook);
  await handToRoom(ctx, webhook.orgId, { deliver: { webhookId: webhook.id, event } });
  return { webhookId: webhook.id, eventId: event.id, eventType: event.type };
}

export async function testWebhook({ ctx, input }: Call<{ id: string }>) {
  const webhook = await webhookToActOn(ctx, input.id);
  return queueDelivery(ctx, webhook, testEvent(webhook));
}

/** Sends a past delivery's event again; the event must still be kept (its retention). */
export async function redeliver({ ctx, input }: Call<{ webhookId: string; deliveryId: string }>) {
  const webhook = await webhookToActOn(ctx, input.webhookId);
  const found = await deliveredEvent(ctx.db, ctx.actor, input.webhookId, input.deliveryId);
  settleCaller(found.caller, ctx, scopes.manage);
  if (!found.delivery) throw notFound("delivery");
  const event = found.event ?? (found.delivery.eventType === "webhook.test" ? testEvent(webhook) : null);
  if (!event) throw new DomainError("conflict", "the event of this delivery is older than the retention and no longer kept");
  return queueDelivery(ctx, webhook, event);
}

// ---- The room's own calls ------------------------------------------------------------------------

/** Every webhook of the organisation, secrets included: what the room delivers to. */
export const webhookTargets = ({ ctx, input }: Call<{ orgId: string }, SystemContext>) => statements.webhookTargets(ctx.db, input.orgId);
export const recordAttempts = ({ ctx, input }: Call<{ orgId: string; attempts: DeliveryAttempt[] }, SystemContext>) =>
  recordDeliveries(ctx.db, input.orgId, input.attempts);
export const disableWebhook = ({ ctx, input }: Call<{ orgId: string; webhookId: string; reason: string }, SystemContext>) =>
  statements.disableWebhook(ctx.db, input.orgId, input.webhookId, input.reason);
