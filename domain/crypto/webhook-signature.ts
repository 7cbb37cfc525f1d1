// Standard Webhooks (standardwebhooks.com) signing, shared by the realtime room (which delivers)
// and the CLI's `listen --forward-to` (which imitates a delivery): headers webhook-id,
// webhook-timestamp and webhook-signature = "v1," + base64(HMAC-SHA256(secret, id.timestamp.body)),
// one such entry per secret while a rotated secret is still honoured.

const SECRET_PREFIX = "whsec_";

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A new signing secret: whsec_ + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(24)));
}

async function signingKey(secret: string): Promise<CryptoKey> {
  const raw = Uint8Array.from(atob(secret.slice(SECRET_PREFIX.length)), (ch) => ch.charCodeAt(0));
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * The three Standard Webhooks headers for `body`, sent as message `id` at `timestamp` (seconds).
 * Several secrets (a rotation's overlap) give one space-separated `v1,<sig>` entry each, in the
 * order given: a receiver accepts the request if any entry verifies under its secret.
 */
export async function signWebhook(
  secrets: string | readonly string[],
  id: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Promise<SignedHeaders> {
  const content = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const signatures = await Promise.all(
    [secrets]
      .flat()
      .map(async (secret) => `v1,${toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(secret), content)))}`),
  );
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatures.join(" "),
  };
}
