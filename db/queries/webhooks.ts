import { sql } from "drizzle-orm";
import { EVENT_SCOPES } from "../../functions/lib/events.ts";
import { generateWebhookSecret } from "../../functions/lib/webhook-signature.ts";
import type { Database } from "../client.ts";
import type { Actor } from "./actor.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { notFound, settleCreate, settleDelete, settleUpdate } from "./outcomes.ts";
import type { PageRequest } from "./paging.ts";
import { createRecord, deleteRecord, getRecord, listRecords, projection, updateRecord, type ResourceDef } from "./records.ts";
import { run } from "./sql.ts";

// Webhooks are integration settings, not operational data: their writes move no changeVersion and
// emit no event (emitsEvents: false). The signing secret is stored (it is needed to sign) but is
// never part of the public record; it is answered once, by the create call.

export const webhookResource: ResourceDef = {
  table: "webhooks",
  type: "webhook",
  readScope: "webhooks.read",
  manageScope: "webhooks.manage",
  emitsEvents: false,
  columns: [
    { key: "url", column: "url", kind: "text" },
    { key: "description", column: "description", kind: "text" },
    { key: "events", column: "events", kind: "textArray" },
    { key: "scopes", column: "scopes", kind: "textArray" },
    { key: "enabled", column: "enabled", kind: "boolean" },
    { key: "disabledReason", column: "disabled_reason", kind: "text" },
    { key: "createdByKeyId", column: "created_by_key_id", kind: "uuid", hidden: true },
    { key: "secret", column: "secret", kind: "text", hidden: true },
  ],
};

const EVENT_READ_SCOPES = [...new Set(Object.values(EVENT_SCOPES))];

export interface WebhookInput {
  url: string;
  events?: string[] | undefined;
  description?: string | null | undefined;
}

export async function createWebhook(db: Database, actor: Actor, input: WebhookInput, idempotency?: IdempotencyRequest) {
  const secret = generateWebhookSecret();
  const outcome = await createRecord(db, actor, webhookResource, {
    values: {
      ...input,
      events: input.events ?? [],
      // What the webhook may see: the registering key's read scopes, as they are now.
      scopes: sql`array(select unnest((select scopes from key)) intersect select unnest(${sql.param(EVENT_READ_SCOPES)}::text[]) order by 1)`,
      createdByKeyId: sql`(select id from key)`,
      secret,
    },
    references: [],
    idempotency,
    // The first answer carries the secret, so a replay of it must too.
    remember: sql`(${projection(webhookResource, "changed")})::jsonb || jsonb_build_object('secret', changed.secret)`,
  });
  const result = settleCreate(outcome, "webhook", idempotency);
  return result.replayed ? result : { ...result, record: { ...result.record, secret } };
}

export function listWebhooks(db: Database, actor: Actor, page: PageRequest) {
  return listRecords(db, actor, webhookResource, { ...page, filters: [] });
}

export function getWebhook(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, webhookResource, id);
}

export async function updateWebhook(
  db: Database,
  actor: Actor,
  id: string,
  patch: { url?: string; events?: string[]; enabled?: boolean; description?: string | null },
  ifMatch: number | null,
) {
  // Turning a webhook back on clears why it was turned off.
  const values = patch.enabled === true ? { ...patch, disabledReason: null } : patch;
  return settleUpdate(await updateRecord(db, actor, webhookResource, { id, patch: values, ifMatch, references: [], rules: [] }), "webhook");
}

export async function deleteWebhook(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return settleDelete(await deleteRecord(db, actor, webhookResource, { id, ifMatch, blockers: [] }), "webhook");
}

/**
 * The webhook, or 404. `scope` is the scope the call needs (checked in the same statement):
 * reading needs webhooks.read, acting on it (a test delivery, a redelivery) webhooks.manage.
 */
export async function requireWebhook(db: Database, actor: Actor, id: string, scope: "webhooks.read" | "webhooks.manage" = "webhooks.read") {
  const webhook = await getRecord(db, actor, { ...webhookResource, readScope: scope }, id);
  if (!webhook) throw notFound("webhook");
  return webhook;
}

/** What the room needs to deliver: every webhook of the organisation, secrets included. */
export interface WebhookTarget {
  id: string;
  url: string;
  events: string[];
  scopes: string[];
  enabled: boolean;
  secret: string;
}

export async function webhookTargets(db: Database, orgId: string): Promise<WebhookTarget[]> {
  return run<WebhookTarget>(
    db,
    sql`select id, url, events, scopes, enabled, secret from webhooks where org_id = ${orgId}::uuid order by created_at, id`,
  );
}

/** A receiver answered 410 Gone: stop delivering, and say why on the webhook. */
export async function disableWebhook(db: Database, orgId: string, id: string, reason: string): Promise<void> {
  await db.query("update webhooks set enabled = false, disabled_reason = $3, updated_at = now(), version = version + 1 where org_id = $1 and id = $2 and enabled", [
    orgId,
    id,
    reason,
  ]);
}
