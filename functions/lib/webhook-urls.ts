import { ApiError } from "../errors.ts";

// Where a webhook may point (SPEC "Webhooks"): https only; plain http and loopback only when the
// deployment allows local receivers (development and tests). Never credentials in the URL, never
// private or link-local address literals: the room must not become a way into a private network.

const PRIVATE_V4 = [
  [10, 0, 0, 0, 8],
  [172, 16, 0, 0, 12],
  [192, 168, 0, 0, 16],
  [169, 254, 0, 0, 16],
  [100, 64, 0, 0, 10],
  [0, 0, 0, 0, 8],
] as const;

function ipv4(host: string): number[] | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}

function inRange(address: number[], [a, b, c, d, bits]: readonly number[]): boolean {
  const value = (address[0]! << 24) | (address[1]! << 16) | (address[2]! << 8) | address[3]!;
  const base = (a! << 24) | (b! << 16) | (c! << 8) | d!;
  const mask = bits === 0 ? 0 : ~((1 << (32 - bits!)) - 1);
  return (value & mask) === (base & mask);
}

function isLoopback(host: string): boolean {
  const v4 = ipv4(host);
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || (v4 !== null && v4[0] === 127);
}

function isPrivateLiteral(host: string): boolean {
  const v4 = ipv4(host);
  if (v4) return PRIVATE_V4.some((range) => inRange(v4, range));
  if (!host.startsWith("[")) return false;
  const v6 = host.slice(1, -1).toLowerCase();
  // Unique-local, link-local, unspecified and IPv4-mapped addresses.
  return /^(fc|fd|fe[89ab])/.test(v6) || v6 === "::" || v6.startsWith("::ffff:");
}

/** The URL, normalised, or a 400 invalid_field naming `url`. */
export function checkWebhookUrl(raw: string, allowLoopback: boolean): string {
  const refuse = (why: string) => new ApiError("invalid_field", `url ${why}`, { field: "url" });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse("is not a valid URL");
  }
  if (url.username || url.password) throw refuse("must not carry credentials");
  const loopback = isLoopback(url.hostname);
  if (loopback && !allowLoopback) throw refuse("must not point at this machine");
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) throw refuse("must use https");
  if (isPrivateLiteral(url.hostname)) throw refuse("must not point at a private or link-local address");
  return url.toString();
}
