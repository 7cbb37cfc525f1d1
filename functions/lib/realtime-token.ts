import type { Scope } from "./scopes.ts";

// Short-lived realtime tokens (SPEC "Realtime"): a browser joins the room with one instead of a
// long-lived API key. Signed with HMAC-SHA256 under the realtime secret shared by the Worker
// (which mints them) and the room (which checks them without a round trip).

export interface RealtimeClaims {
  orgId: string;
  scopes: Scope[];
  /** Expiry, seconds since the epoch. */
  exp: number;
}

const PREFIX = "rt_";

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

/** The token's claims when its signature holds and it has not expired; otherwise null. */
export async function verifyRealtimeToken(secret: string, token: string, now = Date.now()): Promise<RealtimeClaims | null> {
  if (!token.startsWith(PREFIX)) return null;
  const [payload, signature] = token.slice(PREFIX.length).split(".");
  if (!payload || !signature) return null;
  try {
    const valid = await crypto.subtle.verify("HMAC", await signingKey(secret), fromBase64url(signature), new TextEncoder().encode(payload));
    if (!valid) return null;
    const claims = JSON.parse(new TextDecoder().decode(fromBase64url(payload))) as RealtimeClaims;
    return claims.exp * 1000 > now ? claims : null;
  } catch {
    return null;
  }
}
