import { sql } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { EVENT_SCOPES } from "../../domain/events.ts";
import type { PageRequest } from "../../domain/paging.ts";
import type { Database } from "../client.ts";
import { webhooks } from "../schema/index.ts";
import { createRecord } from "./create.ts";
import { deleteRecord } from "./delete.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { projection } from "./projection.ts";
import { getRecord, listRecords } from "./read.ts";
import { defineResource, type RecordOf } from "./resource.ts";
import { run } from "./sql.ts";
import { updateRecord } from "./update.ts";

// Webhooks are integration settings, not operational data: their writes move no changeVersion and
// emit no event. The signing secret is stored (it is needed to sign) but is never part of the
// public record; it is answered once, by the create call (and its Idempotency-Key replay).

export const webhookResource = defineResource(webhooks, {
  type: "webhook",
  readScope: "webhooks.read",
  manageScope: "webhooks.manage",
  emitsEvents: false,
  hidden: ["secret"],
});
export type WebhookRecord = RecordOf<typeof webhookResource>;

const { locked: l } = webhookResource;
const EVENT_READ_SCOPES = [...new Set(Object.values(EVENT_SCOPES))];

export interface NewWebhook {
  url: string;
  events: string[];
  description?: string | null | undefined;
  secret: string;
}

/**
 * What the webhook may see is the registering key's read scopes as they are now, and it records
 * that key; both are taken from the caller inside the statement.
 */
export function createWebhook(db: Database, actor: Actor, values: NewWebhook, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, webhookResource, {
    values: {
      ...values,
      scopes: sql`array(select unnest((select scopes from key)) intersect select unnest(${sql.param(EVENT_READ_SCOPES)}::text[]) order by 1)`,
      createdByKeyId: sql`(select id from key)`,
      createdByUserId: sql`(select user_id from key)`,
    },
    references: [],
    idempotency,
    // The first answer carries the secret, so a replay of it must too.
    remember: sql`(${projection(webhookResource, "changed")})::jsonb || jsonb_build_object('secret', changed.secret)`,
  });
}

export function listWebhooks(db: Database, actor: Actor, page: PageRequest) {
  return listRecords(db, actor, webhookResource, { page, filters: [] });
}

/** The webhook, for a call that needs `scope` (its settings: webhooks.read; acting on it: webhooks.manage). */
export function getWebhook(db: Database, actor: Actor, id: string, scope: "webhooks.read" | "webhooks.manage") {
  return getRecord(db, actor, webhookResource, id, scope);
}

export interface WebhookChange {
  url?: string | undefined;
  events?: string[] | undefined;
  enabled?: boolean | undefined;
  description?: string | null | undefined;
}

/** `scopes_held` fails unless the caller holds every read scope the webhook carries. */
export function updateWebhook(db: Database, actor: Actor, id: string, patch: WebhookChange, ifMatch: number | null) {
  // Turning a webhook back on clears why it was turned off.
  const values = patch.enabled === true ? { ...patch, disabledReason: null } : patch;
  return updateRecord(db, actor, webhookResource, {
    id,
    patch: values,
    ifMatch,
    references: [],
    rules: [{ name: "scopes_held", holds: sql`${l.scopes} <@ (select scopes from key)` }],
  });
}

export function deleteWebhook(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, webhookResource, { id, ifMatch, blockers: [] });
}

/** What the room needs to deliver: every webhook of the organisation, secrets included. */
export async function webhookTargets(db: Database, orgId: string) {
  return run<{ id: string; url: string; events: string[]; scopes: string[]; enabled: boolean; secret: string }>(
    db,
    sql`select id, url, events, scopes, enabled, secret from webhooks where org_id = ${orgId}::uuid order by created_at, id`,
  );
}

/** A receiver answered 410 Gone: stop delivering, and say why on the webhook. */
export async function disableWebhook(db: Database, orgId: string, id: string, reason: string): Promise<void> {
  await run(
    db,
    sql`update webhooks set enabled = false, disabled_reason = ${reason}, updated_at = now(), version = version + 1
         where org_id = ${orgId}::uuid and id = ${id}::uuid and enabled`,
  );
}

/** The webhooks a key registered (a revocation reports them: they keep delivering). */
export function webhooksRegisteredBy(db: Database, keyId: string) {
  return run<{ id: string; url: string; enabled: boolean }>(db, sql`select id, url, enabled from webhooks where created_by_key_id = ${keyId}::uuid order by created_at, id`);
}
