import * as statements from "../db/statements/api-keys.ts";
import { webhooksRegisteredBy } from "../db/statements/webhooks.ts";
import { displayPrefix, generateApiKey, hashApiKey } from "../domain/crypto/api-keys.ts";
import { notFound } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import type { Scope } from "../domain/scopes.ts";
import type { Call, SystemContext } from "./context.ts";

// API keys, issued to one application of an organisation. The key is answered once: only its
// SHA-256 hash and a display prefix are stored. (People create them in the settings area; until
// then the CLI does, as an operator of the deployment.)

export type { ApiKeySummary } from "../db/statements/api-keys.ts";

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
}: Call<{ orgId: string; application: string; scopes: Scope[]; rateLimit?: number | undefined; id?: string | undefined }, Pick<SystemContext, "db">>): Promise<CreatedApiKey> {
  const { key, id, keyHash, prefix } = newApiKey(input.id);
  const { rateLimit } = await statements.insertApiKey(ctx.db, { id, orgId: input.orgId, application: input.application, keyHash, prefix, scopes: input.scopes, rateLimit: input.rateLimit });
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
export const rateLimitOf = ({ ctx, input }: Call<{ keyHash: string }, Pick<SystemContext, "db">>) => statements.rateLimitOf(ctx.db, input.keyHash);
