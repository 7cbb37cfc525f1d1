import ipaddr from "ipaddr.js";
import { DomainError } from "./errors.ts";

// Where a webhook may point (docs/api.md "Webhooks"): https to the public internet only. Plain http and
// loopback only when the deployment allows local receivers (development and tests). Never
// credentials in the URL. An address literal must be a public unicast address: ipaddr.js
// classifies every special-purpose range (private, loopback, link-local, unique-local, multicast,
// broadcast, carrier-grade NAT, benchmarking, IETF protocol assignments, IPv4-mapped, NAT64,
// 6to4, Teredo, site-local, reserved, ...), so the room can never be aimed into a private
// network by a literal. Host names are not resolved here (see docs/api.md §9 "URLs": deliveries run
// on Cloudflare, whose fetch reaches only the public internet).

/** A hostname as WHATWG URL gives it: IPv4 in dotted decimal, IPv6 in brackets. */
function addressOf(hostname: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (hostname.startsWith("[") && hostname.endsWith("]")) return ipaddr.IPv6.parse(hostname.slice(1, -1));
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(hostname)) return ipaddr.IPv4.parse(hostname);
  return null;
}

/** "localhost" and every name under it, with or without the root's trailing dot. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  return name === "localhost" || name.endsWith(".localhost");
}

/** The special-purpose range an address falls in, or null for a public unicast address. */
export function specialRange(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  const range = address.range();
  if (range !== "unicast") return range;
  // ::a.b.c.d (IPv4-compatible, deprecated) is not among ipaddr's ranges but is not public either.
  const ipv4Compatible = address.kind() === "ipv6" && (address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0);
  return ipv4Compatible ? "ipv4Compatible" : null;
}

/** The URL, normalised, or a 400 invalid_field naming `url`. */
export function checkWebhookUrl(raw: string, allowLoopback: boolean): string {
  const refuse = (why: string) => new DomainError("invalid_field", `url ${why}`, { field: "url" });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse("is not a valid URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw refuse("must use https");
  if (url.username || url.password) throw refuse("must not carry credentials");
  const address = addressOf(url.hostname);
  const loopback = isLocalhostName(url.hostname) || address?.range() === "loopback";
  if (loopback) {
    if (!allowLoopback) throw refuse("must not point at this machine");
    return url.toString();
  }
  if (url.protocol !== "https:") throw refuse("must use https");
  const range = address ? specialRange(address) : null;
  if (range) throw refuse(`must point at a public address (${url.hostname} is in the special-purpose range "${range}")`);
  return url.toString();
}
