import { NOTIFICATION_KINDS, type NotificationKind } from "../notifications.ts";

// The tokens of notification mails' unsubscribe links (docs/notifications.md "Unsubscribe"): the
// person and the kind of mail it turns off, and an HMAC-SHA256 of both under the Worker's secret,
// so a link turns off that one kind for that one person, and a changed character makes it fail.
// No expiry: a mail read months later still unsubscribes (RFC 8058 asks the link to keep working).

const encoder = new TextEncoder();

/** What a link turns off: one kind's mail, or the daily digest. */
export type UnsubscribeTarget = NotificationKind | "digest";

export interface Unsubscribe {
  userId: string;
  target: UnsubscribeTarget;
}

const toHex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

async function signatureOf(secret: string, u: Unsubscribe): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(`opsroom unsubscribe\n${secret}`),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(`${u.userId}\n${u.target}`)));
}

export async function signUnsubscribe(secret: string, u: Unsubscribe): Promise<string> {
  return `${u.userId}.${u.target}.${await signatureOf(secret, u)}`;
}

/** The person and target a token names, if its signature holds (compared in constant time). */
export async function verifyUnsubscribe(secret: string, token: string): Promise<Unsubscribe | null> {
  const [userId, target, signature, ...rest] = token.split(".");
  if (rest.length || !userId || !signature || !/^[0-9a-f-]{36}$/.test(userId)) return null;
  if (target !== "digest" && !(NOTIFICATION_KINDS as readonly string[]).includes(target ?? "")) return null;
  const u = { userId, target: target as UnsubscribeTarget };
  const expected = await signatureOf(secret, u);
  let differs = expected.length ^ signature.length;
  for (let i = 0; i < expected.length; i++) differs |= expected.charCodeAt(i) ^ (signature.charCodeAt(i) || 0);
  return differs === 0 ? u : null;
}
