import { sha256Hex } from "./hash.ts";

// API key format (docs/api.md "Keys and scopes"): "ops_" + 32 random base62 characters (190 bits) + a 6-character base62
// CRC32 checksum, like GitHub's tokens: a typo or truncated key is refused without a database
// lookup, and secret scanners can recognise the format.
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const PREFIX = "ops_";
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const API_KEY_PATTERN = /^ops_[0-9A-Za-z]{38}$/;
/** Characters of the key kept in clear, so people can tell keys apart. */
export const DISPLAY_PREFIX_LENGTH = PREFIX.length + 8;

function base62(bytes: Uint8Array): string {
  let out = "";
  // Rejection sampling keeps every character uniform (248 = 4 * 62).
  for (const byte of bytes) if (byte < 248) out += ALPHABET[byte % 62];
  return out;
}

/** `length` uniformly random base62 characters (5.95 bits each). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) out += base62(crypto.getRandomValues(new Uint8Array(length + 16)));
  return out.slice(0, length);
}

function encodeChecksum(value: number): string {
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 of an ASCII string (a key's body is base62): its character codes are its UTF-8 bytes. */
function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function generateApiKey(): string {
  const body = randomBase62(BODY_LENGTH);
  return PREFIX + body + encodeChecksum(crc32(body));
}

/** True when the key has the right shape and its checksum matches. */
export function isWellFormedApiKey(key: string): boolean {
  if (!API_KEY_PATTERN.test(key)) return false;
  const body = key.slice(PREFIX.length, PREFIX.length + BODY_LENGTH);
  return key.slice(PREFIX.length + BODY_LENGTH) === encodeChecksum(crc32(body));
}

/** SHA-256 of the key, hex: the only form in which a key is stored or looked up. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
