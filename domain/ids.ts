// The milliseconds of the last id made here, and its 12-bit counter (rand_a).
let lastMs = 0;
let counter = 0;
/** The largest value of the 12-bit counter. */
const COUNTER_MAX = 0xfff;

/**
 * A UUIDv7 (RFC 9562): 48-bit Unix milliseconds, a 12-bit counter, then 62 random bits, so ids
 * sort by creation. Within one millisecond the counter keeps the order (RFC 9562 section 6.2,
 * method 1): it starts at a random value below 2048 each new millisecond and counts up, and
 * when it would pass 4095 the timestamp moves one millisecond on. So every id one isolate makes
 * sorts after the one before, even when workerd's clock stands still for a whole request (a
 * batch creates its records in one request) or runs backwards. Ids made by two isolates in the
 * same millisecond are ordered by chance.
 */
export function uuidv7(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = ((bytes[6]! & 0x07) << 8) | bytes[7]!;
  } else if (counter < COUNTER_MAX) counter++;
  else {
    lastMs++;
    counter = 0;
  }
  const ms = lastMs;
  bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
  bytes[2] = (ms >>> 24) & 0xff;
  bytes[3] = (ms >>> 16) & 0xff;
  bytes[4] = (ms >>> 8) & 0xff;
  bytes[5] = ms & 0xff;
  bytes[6] = 0x70 | (counter >>> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  let id = "";
  for (let i = 0; i < 16; i++) id += (i === 4 || i === 6 || i === 8 || i === 10 ? "-" : "") + HEX[bytes[i]!];
  return id;
}

/** Each byte's two hex digits: a write makes an id or two on every call (1-2 % of a PATCH's CPU as a closure per byte and a join). */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
