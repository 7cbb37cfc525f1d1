import type { RoomMessage } from "../realtime/protocol.ts";

// The organisations' realtime rooms, as a request reaches them: a POST of one protocol message
// (realtime/protocol.ts) with the shared secret. Apart from services/rooms.ts (publishing and
// recording what the room acknowledged) so that every request's context holds it without loading
// the statements.

const TELL_TIMEOUT_MS = 5_000;

export interface Rooms {
  /** Posts a message to the organisation's room; throws unless it took it. */
  tell(orgId: string, message: RoomMessage): Promise<unknown>;
}

/** Where the rooms are, and the secret they take. */
export interface RoomAddress {
  url: string;
  secret: string;
}

/** The rooms at `address`; with none, every message fails (and publishing is left to the sweep). */
export function roomsAt(address: RoomAddress | null): Rooms {
  return {
    async tell(orgId, message) {
      if (!address) throw new Error("realtime is not configured (REALTIME_URL and REALTIME_SECRET)");
      const response = await fetch(`${address.url}/parties/v1/${orgId}`, {
        method: "POST",
        headers: { authorization: `Bearer ${address.secret}`, "content-type": "application/json" },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(TELL_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`room ${orgId} answered ${response.status}`);
      return response.json();
    },
  };
}
