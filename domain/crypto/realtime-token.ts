import type { Scope } from "../scopes.ts";

// Short-lived realtime tokens (docs/api.md "Realtime"): a browser joins the room with one instead of a
// long-lived API key. Signed with HMAC-SHA256 under the realtime secret shared by the Worker
// (which mints them) and the room (which checks them). A token names the key it was minted from,
// so the room refuses it once that key is revoked; or the session of the person it was minted for,
// so the room refuses it once they sign out or leave the organisation; or the grant of the OAuth
// application's access token it was minted with, so the room refuses it once the grant is revoked
// or the application uninstalled.

export interface RealtimeClaims {
  orgId: string;
  /** The API key the token was minted from (a token names exactly one of a key, a session and a grant). */
  keyId?: string | undefined;
  /** The session of the person signed in it was minted for. */
  sessionId?: string | undefined;
  /** The grant of the OAuth application's access token it was minted with (docs/apps.md). */
  grantId?: string | undefined;
  scopes: Scope[];
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/** The longest lifetime a token may ask for, in seconds. */
export const MAX_TOKEN_TTL_SECONDS = 900;

const PREFIX = "rt_";
/** Unpadded base64url: the only alphabet a token's two parts are written in. */
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

async function signingKey(secret: string): Promise<CryptoKey> {
  // A key of its own, derived from the shared secret, so a token can never double as a publish credential.
  return crypto.subtle.importKey("raw", new TextEncoder().encode(`realtime-token:${secret}`), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

export async function signRealtimeToken(secret: string, claims: RealtimeClaims): Promise<string> {
  const payload = base64url(new TextEncoder().encode(JSON.stringify(claims)));
  const signature = await crypto.subtle.sign("HMAC", await signingKey(secret), new TextEncoder().encode(payload));
  return `${PREFIX}${payload}.${base64url(new Uint8Array(signature))}`;
}

function isClaims(value: unknown): value is RealtimeClaims {
  const claims = value as Partial<RealtimeClaims> | null;
  return (
    typeof claims === "object" &&
    claims !== null &&
    typeof claims.orgId === "string" &&
    // exactly one of keyId, sessionId and grantId, a UUID
    [claims.keyId, claims.sessionId, claims.grantId].filter((id) => typeof id === "string").length === 1 &&
    UUID.test(claims.keyId ?? claims.sessionId ?? claims.grantId ?? "") &&
    Array.isArray(claims.scopes) &&
    claims.scopes.every((scope) => typeof scope === "string") &&
    Number.isSafeInteger(claims.exp)
  );
}

/**
 * The token's claims when it is exactly `rt_<payload>.<signature>` (canonical unpadded base64url,
 * nothing more), its signature holds, it names one key, session or grant and it has not expired; otherwise null.
 */
export async function verifyRealtimeToken(secret: string, token: string, now = Date.now()): Promise<RealtimeClaims | null> {
  if (!token.startsWith(PREFIX)) return null;
  const parts = token.slice(PREFIX.length).split(".");
  if (parts.length !== 2) return null;
  const [payload, signature] = parts as [string, string];
  if (!BASE64URL.test(payload) || !BASE64URL.test(signature)) return null;
  try {
    const signatureBytes = fromBase64url(signature);
    // One spelling per signature: other trailing bits would decode to the same bytes.
    if (base64url(signatureBytes) !== signature) return null;
    const valid = await crypto.subtle.verify("HMAC", await signingKey(secret), signatureBytes, new TextEncoder().encode(payload));
    if (!valid) return null;
    const claims: unknown = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
    return isClaims(claims) && claims.exp * 1000 > now ? claims : null;
  } catch {
    return null;
  }
}
