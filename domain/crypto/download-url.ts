// Signed download links for attachments (docs/attachments.md): the path names the attachment, the
// query its expiry (seconds since the epoch), whether it opens inline, and an HMAC-SHA256 over
// those and the organisation the file belongs to, so a link works for its own file only, until it
// expires, and a changed character anywhere makes it fail.

const encoder = new TextEncoder();

const toHex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

async function keyOf(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    encoder.encode(`opsroom attachment downloads\n${secret}`),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
}

export interface DownloadGrant {
  orgId: string;
  attachmentId: string;
  /** Seconds since the epoch. */
  expires: number;
  inline: boolean;
}

const messageOf = (g: DownloadGrant) => `${g.orgId}\n${g.attachmentId}\n${g.expires}\n${g.inline ? "inline" : "attachment"}`;

export async function signDownload(secret: string, grant: DownloadGrant): Promise<string> {
  return toHex(await crypto.subtle.sign("HMAC", await keyOf(secret), encoder.encode(messageOf(grant))));
}

/** Constant-time: the signature matches the grant, and the grant has not expired at `now` (seconds). */
export async function downloadHolds(secret: string, grant: DownloadGrant, signature: string, now = Date.now() / 1000): Promise<boolean> {
  const expected = await signDownload(secret, grant);
  let differs = expected.length ^ signature.length;
  for (let i = 0; i < expected.length; i++) differs |= expected.charCodeAt(i) ^ (signature.charCodeAt(i) || 0);
  return differs === 0 && grant.expires > now;
}
