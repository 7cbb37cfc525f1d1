import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  API_KEY_PATTERN,
  DISPLAY_PREFIX_LENGTH,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from "../../domain/crypto/api-keys.ts";

// domain/crypto/api-keys.ts against an independent reading of the format (docs/api.md "Keys and
// scopes"): "ops_" + 32 base62 characters + the body's CRC32 (node:zlib's) in 6 base62 digits.

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The checksum the format calls for, computed without the module under test. */
function checksumOf(body: string): string {
  let value = crc32(Buffer.from(body, "utf8"));
  let digits = "";
  for (let i = 0; i < 6; i++) {
    digits = ALPHABET[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

const keyWith = (body: string) => `ops_${body}${checksumOf(body)}`;
const BODY = "aZ09bY18cX27dW36eV45fU54gT63hS72";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("generateApiKey", () => {
  it("answers ops_ + 32 base62 characters + their CRC32 in 6 base62 digits", () => {
    for (let i = 0; i < 50; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^ops_[0-9A-Za-z]{38}$/);
      expect(key.slice(36)).toBe(checksumOf(key.slice(4, 36)));
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it("is random: no two keys alike", () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey()));
    expect(keys.size).toBe(200);
  });

  it("maps each random byte below 248 to ALPHABET[byte % 62], in order", () => {
    // The bytes 0..47, then 48..95: each below 248, so the body is their characters in order.
    let call = 0;
    vi.spyOn(crypto, "getRandomValues").mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      const bytes = array as unknown as Uint8Array;
      for (let i = 0; i < bytes.length; i++) bytes[i] = (call * 48 + i) % 256;
      call++;
      return array;
    });
    const key = generateApiKey();
    const expected = Array.from({ length: 32 }, (_, i) => ALPHABET[i % 62]).join("");
    expect(key).toBe(keyWith(expected));
  });

  it("rejects the bytes 248..255 (they would bias the alphabet), drawing more until 32 characters", () => {
    // First draw: only bytes 248..255 (all rejected: 248 = 4 * 62 would map to "0"); then 61s.
    const draws = [new Array(48).fill(0).map((_, i) => 248 + (i % 8)), new Array(48).fill(61)];
    let call = 0;
    vi.spyOn(crypto, "getRandomValues").mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      (array as unknown as Uint8Array).set(draws[Math.min(call++, 1)]!);
      return array;
    });
    const key = generateApiKey();
    expect(key).toBe(keyWith("z".repeat(32)));
    expect(call).toBe(2);
  });

  it("keeps drawing while fewer than 32 characters are in, and keeps only 32", () => {
    // Each draw yields 31 usable bytes (17 rejected): the key needs a second draw, and uses its first character only.
    let call = 0;
    vi.spyOn(crypto, "getRandomValues").mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      const bytes = array as unknown as Uint8Array;
      bytes.fill(255);
      bytes.fill(call === 0 ? 10 : 11, 0, 31);
      call++;
      return array;
    });
    const key = generateApiKey();
    expect(key).toBe(keyWith(`${"A".repeat(31)}B`));
    expect(call).toBe(2);
  });
});

describe("isWellFormedApiKey", () => {
  it("accepts a key with the right shape and checksum", () => {
    expect(isWellFormedApiKey(keyWith(BODY))).toBe(true);
    expect(isWellFormedApiKey(keyWith("0".repeat(32)))).toBe(true);
    expect(isWellFormedApiKey(keyWith("z".repeat(32)))).toBe(true);
  });

  it("refuses a key whose checksum does not match its body (a typo, a swapped character)", () => {
    const key = keyWith(BODY);
    expect(isWellFormedApiKey(`${key.slice(0, 10)}${key[10] === "a" ? "b" : "a"}${key.slice(11)}`)).toBe(false);
    // The checksum's own characters, each changed.
    for (let i = 36; i < 42; i++)
      expect(isWellFormedApiKey(`${key.slice(0, i)}${key[i] === "0" ? "1" : "0"}${key.slice(i + 1)}`)).toBe(false);
    // Another body's checksum.
    expect(isWellFormedApiKey(`ops_${BODY}${checksumOf("0".repeat(32))}`)).toBe(false);
  });

  it("refuses every other shape, even with a checksum that matches", () => {
    const refused = [
      "",
      "ops_",
      keyWith(BODY).slice(0, -1),
      `${keyWith(BODY)}0`,
      `x${keyWith(BODY)}`,
      ` ${keyWith(BODY)}`,
      `${keyWith(BODY)}\n`,
      keyWith(BODY).replace("ops_", "OPS_"),
      keyWith(BODY).replace("ops_", "opx_"),
      keyWith(BODY).replace("ops_", "ops-"),
      // Characters outside base62, with the checksum computed over them.
      keyWith(`${BODY.slice(0, 31)}-`),
      keyWith(`_${BODY.slice(1)}`),
      keyWith(`${BODY.slice(0, 16)} ${BODY.slice(17)}`),
      keyWith(`${BODY.slice(0, 16)}é${BODY.slice(17)}`),
      // 31 or 33 characters of body, each with its own checksum.
      keyWith(BODY.slice(1)),
      keyWith(`${BODY}a`),
    ];
    for (const key of refused) expect(isWellFormedApiKey(key), JSON.stringify(key)).toBe(false);
  });

  it("API_KEY_PATTERN is exactly ops_ and 38 base62 characters", () => {
    expect(API_KEY_PATTERN.test(`ops_${"aZ9".repeat(12)}aZ`)).toBe(true);
    expect(API_KEY_PATTERN.test(`ops_${"a".repeat(37)}`)).toBe(false);
    expect(API_KEY_PATTERN.test(`ops_${"a".repeat(39)}`)).toBe(false);
    expect(API_KEY_PATTERN.test(`xops_${"a".repeat(38)}`)).toBe(false);
    expect(API_KEY_PATTERN.test(`ops_${"a".repeat(37)}-`)).toBe(false);
  });
});

describe("hashApiKey and displayPrefix", () => {
  it("hashApiKey is the key's SHA-256 in lowercase hex", async () => {
    const key = keyWith(BODY);
    expect(hashApiKey(key)).toBe(createHash("sha256").update(key).digest("hex"));
  });

  it("displayPrefix keeps ops_ and the first 8 characters of the body", () => {
    expect(DISPLAY_PREFIX_LENGTH).toBe(12);
    expect(displayPrefix(keyWith(BODY))).toBe(`ops_${BODY.slice(0, 8)}`);
  });
});
