import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MAX_TOKEN_TTL_SECONDS, signRealtimeToken, verifyRealtimeToken, type RealtimeClaims } from "../../domain/crypto/realtime-token.ts";

// domain/crypto/realtime-token.ts: rt_<payload>.<signature>, HMAC-SHA256 under a key derived from
// the realtime secret, checked against tokens made here with node:crypto, independently.

const SECRET = "0123456789abcdef0123456789abcdef";
const NOW = 1_800_000_000_000;
const KEY_ID = "0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b";
const CLAIMS: RealtimeClaims = {
  orgId: "0190a5b2-0000-7000-8000-000000000001",
  keyId: KEY_ID,
  scopes: ["tasks.read"],
  exp: NOW / 1000 + 60,
};

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");
const mac = (secret: string, payload: string) => createHmac("sha256", `realtime-token:${secret}`).update(payload).digest();

/** A token as the format defines it, for any payload text. */
function tokenOf(payloadText: string, secret = SECRET): string {
  const payload = b64url(payloadText);
  return `rt_${payload}.${b64url(mac(secret, payload))}`;
}
const tokenFor = (claims: unknown, secret = SECRET) => tokenOf(JSON.stringify(claims), secret);

describe("signRealtimeToken", () => {
  it("writes rt_ + base64url(JSON claims) + . + base64url(HMAC-SHA256 under realtime-token:<secret>), unpadded", async () => {
    const token = await signRealtimeToken(SECRET, CLAIMS);
    expect(token).toBe(tokenFor(CLAIMS));
    expect(token).toMatch(/^rt_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(token).not.toContain("=");
  });

  it("writes the characters base64 spells + and / as - and _", async () => {
    // Claims whose JSON and signature, in base64, need + and / (found by search, fixed here).
    for (let i = 0; i < 40; i++) {
      const claims = { ...CLAIMS, orgId: `org-\u00ff\u00fe>?${i}` };
      expect(await signRealtimeToken(SECRET, claims)).toBe(tokenFor(claims));
    }
  });

  it("round-trips: verify answers the claims it was signed with, whatever base64url characters they need", async () => {
    expect(await verifyRealtimeToken(SECRET, await signRealtimeToken(SECRET, CLAIMS), NOW)).toEqual(CLAIMS);
    expect(MAX_TOKEN_TTL_SECONDS).toBe(900);
    const spelled = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const claims = { ...CLAIMS, orgId: `org-\u00ff\u00fe>?${i}` };
      const token = await signRealtimeToken(SECRET, claims);
      for (const ch of token.slice(3)) spelled.add(ch);
      expect(await verifyRealtimeToken(SECRET, token, NOW)).toEqual(claims);
    }
    // Both parts used - and _ (what base64 spells + and /) somewhere among them.
    expect(spelled.has("-") && spelled.has("_")).toBe(true);
  });
});

describe("verifyRealtimeToken", () => {
  it("accepts a token made independently, until it expires", async () => {
    expect(await verifyRealtimeToken(SECRET, tokenFor(CLAIMS), NOW)).toEqual(CLAIMS);
    expect(await verifyRealtimeToken(SECRET, tokenFor(CLAIMS), CLAIMS.exp * 1000 - 1)).toEqual(CLAIMS);
    expect(await verifyRealtimeToken(SECRET, tokenFor(CLAIMS), CLAIMS.exp * 1000)).toBeNull();
    expect(await verifyRealtimeToken(SECRET, tokenFor(CLAIMS), CLAIMS.exp * 1000 + 1)).toBeNull();
  });

  it("defaults now to the clock", async () => {
    const exp = Math.floor(Date.now() / 1000);
    expect(await verifyRealtimeToken(SECRET, tokenFor({ ...CLAIMS, exp: exp + 30 }))).not.toBeNull();
    expect(await verifyRealtimeToken(SECRET, tokenFor({ ...CLAIMS, exp: exp - 1 }))).toBeNull();
  });

  it("refuses a token signed under another secret, or as the publish secret itself", async () => {
    expect(await verifyRealtimeToken(SECRET, tokenFor(CLAIMS, `${SECRET}x`), NOW)).toBeNull();
    const payload = b64url(JSON.stringify(CLAIMS));
    const underRawSecret = `rt_${payload}.${b64url(createHmac("sha256", SECRET).update(payload).digest())}`;
    expect(await verifyRealtimeToken(SECRET, underRawSecret, NOW)).toBeNull();
  });

  it("refuses a changed payload or signature", async () => {
    const token = tokenFor(CLAIMS);
    const [payload, signature] = token.slice(3).split(".") as [string, string];
    const other = b64url(JSON.stringify({ ...CLAIMS, scopes: ["tasks.read", "webhooks.read"] }));
    expect(await verifyRealtimeToken(SECRET, `rt_${other}.${signature}`, NOW)).toBeNull();
    const flipped = `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`;
    expect(await verifyRealtimeToken(SECRET, `rt_${payload}.${flipped}`, NOW)).toBeNull();
    expect(await verifyRealtimeToken(SECRET, `rt_${payload}.${signature.slice(0, -1)}`, NOW)).toBeNull();
  });

  it("refuses every other shape: the prefix, the parts, the alphabet, padding, a second spelling", async () => {
    const token = tokenFor(CLAIMS);
    const [payload, signature] = token.slice(3).split(".") as [string, string];
    // The signature is 32 bytes: 43 characters, whose last carries 2 unused bits. Setting one of
    // them spells the same bytes another way.
    const last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(signature.at(-1)!);
    const respelled = `${signature.slice(0, -1)}${"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last | 1]}`;
    expect(respelled).not.toBe(signature);
    const refused = [
      "",
      "rt_",
      token.slice(3),
      `RT_${token.slice(3)}`,
      `xrt_${token.slice(3)}`,
      `rt_${payload}`,
      `rt_${payload}.`,
      `rt_.${signature}`,
      `rt_${payload}.${signature}.`,
      `rt_${payload}.${signature}.${signature}`,
      `rt_${payload}=.${signature}`,
      `rt_${payload}.${signature}=`,
      `rt_${payload}.${signature} `,
      ` ${token}`,
      `rt_${payload.replace(/-/g, "+").replace(/_/g, "/")}x.${signature}`,
      `rt_${payload}.${signature.replace(/./, "+")}`,
      `rt_${payload}.${signature.replace(/./, "/")}`,
      `rt_${payload}.${respelled}`,
    ];
    for (const candidate of refused) expect(await verifyRealtimeToken(SECRET, candidate, NOW), JSON.stringify(candidate)).toBeNull();
  });

  it("refuses a payload in any other spelling of base64, even when the signature covers that exact text", async () => {
    // These decode to the very claims (atob forgives padding, + and /, and blanks), and each is
    // signed as written: only the canonical alphabet check refuses them.
    const json = JSON.stringify({ ...CLAIMS, orgId: "org?>>" });
    const standard = Buffer.from(json).toString("base64");
    expect(standard).toMatch(/[+/]/);
    expect(standard).toMatch(/=$/);
    const spellings = [
      standard,
      `${b64url(json)}=`,
      ` ${b64url(json)}`,
      `${b64url(json)} `,
      `${b64url(json).slice(0, 8)} ${b64url(json).slice(8)}`,
    ];
    for (const payload of spellings) {
      expect(Buffer.from(payload, "base64").toString(), payload).toBe(json);
      const token = `rt_${payload}.${b64url(mac(SECRET, payload))}`;
      expect(await verifyRealtimeToken(SECRET, token, NOW), payload).toBeNull();
    }
  });

  it("refuses a well-signed payload that is not the claims of a key", async () => {
    const exp = CLAIMS.exp;
    const payloads: unknown[] = [
      null,
      "claims",
      42,
      [],
      {},
      { ...CLAIMS, orgId: 7 },
      { ...CLAIMS, orgId: undefined },
      { ...CLAIMS, keyId: undefined },
      { ...CLAIMS, keyId: 5 },
      { ...CLAIMS, keyId: "not-a-uuid" },
      { ...CLAIMS, keyId: KEY_ID.toUpperCase() },
      { ...CLAIMS, keyId: `${KEY_ID}0` },
      { ...CLAIMS, keyId: `x${KEY_ID}` },
      // Not a string, though it reads as one.
      { ...CLAIMS, keyId: [KEY_ID] },
      // Exactly one of a key, a session and a grant.
      { ...CLAIMS, sessionId: KEY_ID },
      { ...CLAIMS, grantId: KEY_ID },
      { ...CLAIMS, keyId: undefined, sessionId: KEY_ID, grantId: KEY_ID },
      { ...CLAIMS, keyId: undefined, grantId: "not-a-uuid" },
      { ...CLAIMS, scopes: "tasks.read" },
      { ...CLAIMS, scopes: undefined },
      { ...CLAIMS, scopes: ["tasks.read", 5] },
      { ...CLAIMS, scopes: [null] },
      { ...CLAIMS, exp: undefined },
      { ...CLAIMS, exp: String(exp) },
      { ...CLAIMS, exp: exp + 0.5 },
      { ...CLAIMS, exp: 2 ** 53 },
    ];
    for (const claims of payloads) expect(await verifyRealtimeToken(SECRET, tokenFor(claims), NOW), JSON.stringify(claims)).toBeNull();
    expect(await verifyRealtimeToken(SECRET, tokenOf("{not json"), NOW)).toBeNull();
    // A session's and a grant's claims are claims too.
    for (const name of ["sessionId", "grantId"]) {
      const named = { ...CLAIMS, keyId: undefined, [name]: KEY_ID };
      expect(await verifyRealtimeToken(SECRET, tokenFor(named), NOW)).toEqual(JSON.parse(JSON.stringify(named)));
    }
    // A key with no scopes is still a key's claims.
    expect(await verifyRealtimeToken(SECRET, tokenFor({ ...CLAIMS, scopes: [] }), NOW)).toEqual({ ...CLAIMS, scopes: [] });
  });
});
