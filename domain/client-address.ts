import ipaddr from "ipaddr.js";

/**
 * The client a refused key is counted against: an IPv4 address as it is, an IPv6 address by its
 * /64 (one subscriber's prefix: a client holds all of it, and could rotate through 2^64 addresses
 * otherwise). Anything else (no address known) is counted as it is.
 */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}
