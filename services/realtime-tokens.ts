import { signRealtimeToken } from "../domain/crypto/realtime-token.ts";
import { DomainError } from "../domain/errors.ts";
import { EVENT_READ_SCOPES } from "../domain/events.ts";
import { ALL_SCOPES, type Scope } from "../domain/scopes.ts";
import type { Call } from "./context.ts";
import { describeCaller } from "./organisation.ts";

/** A token's default lifetime, in seconds. */
export const DEFAULT_TOKEN_TTL_SECONDS = 300;

/**
 * A short-lived token for joining the room from a browser: the caller's organisation, what it was
 * minted from (a key, a person's session, or an application's grant, so the room refuses the token
 * once that is revoked, signed out, or revoked or uninstalled) and a subset of its read scopes, never
 * more. Signed under the realtime secret the Worker and the room share.
 */
export async function mintRealtimeToken({
  ctx,
  input,
}: Call<{ secret: string; scopes?: Scope[] | undefined; ttlSeconds?: number | undefined }>) {
  const caller = await describeCaller({ ctx, input: {} });
  const missing = input.scopes?.find((scope) => !caller.scopes.includes(scope));
  if (missing) throw new DomainError("insufficient_scope", `the caller does not hold ${missing}`, { scope: missing, field: "scopes" });
  const readable = caller.scopes.filter((scope) => EVENT_READ_SCOPES.includes(scope));
  const scopes = ALL_SCOPES.filter((scope) => (input.scopes ?? readable).includes(scope));
  if (scopes.length === 0) {
    throw new DomainError("insufficient_scope", "a realtime token needs a key holding at least one read scope", {
      scope: EVENT_READ_SCOPES.join(" | "),
    });
  }
  const exp = Math.floor(Date.now() / 1000) + (input.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS);
  const names = caller.keyId ? { keyId: caller.keyId } : caller.grantId ? { grantId: caller.grantId } : { sessionId: caller.sessionId! };
  const token = await signRealtimeToken(input.secret, { orgId: caller.orgId, ...names, scopes, exp });
  return { token, expiresAt: new Date(exp * 1000).toISOString(), orgId: caller.orgId, scopes };
}
