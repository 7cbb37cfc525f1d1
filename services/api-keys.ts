import * as statements from "../db/statements/api-keys.ts";
import { MANAGE_SETTINGS } from "../db/statements/engine/settings-caller.ts";
import { webhooksRegisteredBy } from "../db/statements/webhooks.ts";
import { NO_REQUEST } from "../domain/audit.ts";
import { displayPrefix, generateApiKey, hashApiKey } from "../domain/crypto/api-keys.ts";
import { notFound } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import { expandScopes, type Scope } from "../domain/scopes.ts";
import type { Call, SystemContext } from "./context.ts";
import { settleCaller } from "./settle.ts";

// API keys, issued to one application of an organisation. The key is answered once: only its
// SHA-256 hash and a display prefix are stored. People (owners and admins) make, revoke and
// replace their organisation's keys in the settings area; the CLI does for any organisation, as an
// operator of the deployment. A revoked key is refused (401) at once, and its room is told to
// close the sockets opened with it.

export type { ApiKeyRecord, ApiKeySummary } from "../db/statements/api-keys.ts";

export interface CreatedApiKey {
  id: string;
  /** The key itself: shown once, never stored. */
  key: string;
  prefix: string;
  orgId: string;
  application: string;
  scopes: Scope[];
  rateLimit: number;
}

/** A new key with its id, and what is stored of it: its hash and display prefix (the CLI's and the settings area's keys). */
export function newApiKey(id: string = uuidv7()): { key: string; id: string; keyHash: string; prefix: string } {
  const key = generateApiKey();
  return { key, id, keyHash: hashApiKey(key), prefix: displayPrefix(key) };
}

/** `scopes` must already be expanded (see expandScopes): they are stored as held. */
export async function createApiKey({
  ctx,
  input,
}: Call<
  { orgId: string; application: string; scopes: Scope[]; rateLimit?: number | undefined; id?: string | undefined },
  Pick<SystemContext, "db">
>): Promise<CreatedApiKey> {
  const { key, id, keyHash, prefix } = newApiKey(input.id);
  const { rateLimit } = await statements.insertApiKey(ctx.db, {
    id,
    orgId: input.orgId,
    application: input.application,
    keyHash,
    prefix,
    scopes: input.scopes,
    rateLimit: input.rateLimit,
  });
  return { id, key, prefix, orgId: input.orgId, application: input.application, scopes: input.scopes, rateLimit };
}

export const listApiKeys = ({ ctx, input }: Call<{ orgId: string }, SystemContext>) => statements.listApiKeys(ctx.db, input.orgId);

/**
 * Revokes a key: requests with it are refused (401) from now on, and its room closes the sockets
 * opened with it or with realtime tokens minted from it. `roomTold` says whether the room took
 * the notice at once; one that could not be told hears it from the sweep within a minute.
 * Webhooks the key registered belong to the organisation and keep delivering: they are listed,
 * so whoever revokes a leaked key can see what it set up.
 */
export async function revokeApiKey({ ctx, input }: Call<{ keyId: string }, SystemContext>) {
  const revoked = await statements.revokeApiKey(ctx.db, input.keyId);
  if (!revoked) throw notFound("API key");
  const roomTold = await ctx.rooms.tell(revoked.orgId, { keysRevoked: [input.keyId] }).then(
    () => true,
    () => false,
  );
  return { orgId: revoked.orgId, roomTold, webhooks: await webhooksRegisteredBy(ctx.db, input.keyId) };
}

/** A live key by id (the key a realtime token was minted from), or null. */
export const findActiveKey = ({ ctx, input }: Call<{ keyId: string }, SystemContext>) => statements.findActiveKey(ctx.db, input.keyId);

/** A live key's rate limit by its hash, or null (the RateLimiter reads it). */
export const rateLimitOf = ({ ctx, input }: Call<{ keyHash: string }, Pick<SystemContext, "db">>) =>
  statements.rateLimitOf(ctx.db, input.keyHash);

// ---------------------------------------------------------------------------------------------
// The settings area: a signed-in owner's or admin's, for the organisation their session acts for

export async function listOrganisationKeys({ ctx }: Call<Record<string, never>>) {
  const outcome = await statements.listOrganisationKeys(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  return outcome.keys;
}

/** A key named for its application, with the chosen scopes (a .manage scope brings its .read). The key is answered once. */
export async function createOrganisationKey({ ctx, input }: Call<{ name: string; scopes: Scope[]; rateLimit?: number | undefined }>) {
  const { key, ...stored } = newApiKey();
  const outcome = await statements.createOrganisationKey(
    ctx.db,
    ctx.actor,
    {
      ...stored,
      name: input.name,
      scopes: expandScopes(input.scopes),
      rateLimit: input.rateLimit,
    },
    ctx.request ?? NO_REQUEST,
  );
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  return { ...outcome.key!, key };
}

/** Revokes a key: 401 at once over HTTP; its room closes its sockets (after the answer). */
export async function revokeOrganisationKey({ ctx, input }: Call<{ keyId: string }>) {
  const outcome = await statements.revokeOrganisationKey(ctx.db, ctx.actor, input.keyId, ctx.request ?? NO_REQUEST);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (!outcome.revoked) throw notFound("API key");
  const { orgId, id } = outcome.revoked;
  ctx.defer(() => ctx.rooms.tell(orgId, { keysRevoked: [id] }));
}

/** A new key with the old one's name, scopes and rate limit, and the old one revoked, in one statement. */
export async function replaceOrganisationKey({ ctx, input }: Call<{ keyId: string }>) {
  const { key, ...stored } = newApiKey();
  const outcome = await statements.replaceOrganisationKey(ctx.db, ctx.actor, input.keyId, stored, ctx.request ?? NO_REQUEST);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (!outcome.key || !outcome.orgId) throw notFound("API key");
  const orgId = outcome.orgId;
  ctx.defer(() => ctx.rooms.tell(orgId, { keysRevoked: [input.keyId] }));
  return { ...outcome.key, key, replaces: input.keyId };
}
