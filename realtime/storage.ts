import type * as Party from "partykit/server";

// Room storage written in batches of any size, atomically. A Durable Object takes at most 128
// keys per put or delete and 128 KiB per value, so whatever can grow with the traffic (events,
// webhook jobs) is kept one key per item, and a change touching many of them is split into calls
// of 128. The calls are all issued before the first is awaited: Durable Object storage commits
// writes made with no `await` between them as one atomic batch, so a room that dies midway
// keeps either all of the change or none of it.

const KEYS_PER_CALL = 128;

export interface StorageChange {
  put?: Record<string, unknown>;
  delete?: string[];
}

/**
 * `unconfirmed`: the writes do not hold back the room's outgoing messages (sockets, responses)
 * until they are durable, as Durable Object writes otherwise do (the output gate); the caller
 * awaits `storage.sync()` before it tells anyone the change is kept.
 */
export function writeAtomically(storage: Party.Storage, change: StorageChange, options: { unconfirmed?: boolean } = {}): Promise<unknown> {
  const writes: Promise<unknown>[] = [];
  const gate = options.unconfirmed ? { allowUnconfirmed: true } : undefined;
  const entries = Object.entries(change.put ?? {});
  for (let i = 0; i < entries.length; i += KEYS_PER_CALL)
    writes.push(storage.put(Object.fromEntries(entries.slice(i, i + KEYS_PER_CALL)), gate));
  const keys = change.delete ?? [];
  for (let i = 0; i < keys.length; i += KEYS_PER_CALL) writes.push(storage.delete(keys.slice(i, i + KEYS_PER_CALL), gate));
  return Promise.all(writes);
}

/** A key that lists in numeric order (a changeVersion, a due time): `prefix` + the number, zero-padded. */
export function orderedKey(prefix: string, n: number): string {
  return `${prefix}${String(n).padStart(16, "0")}`;
}

/** Whether any key starts with `prefix`. */
export async function hasAny(storage: Party.Storage, prefix: string): Promise<boolean> {
  return (await storage.list({ prefix, limit: 1 })).size > 0;
}
