import ReconnectingWebSocket from "partysocket/ws";
import WebSocket from "ws";
import type { OpsEvent } from "../../../domain/events.ts";
import { ResyncRequired, type ListenApi, type ListenFilter } from "./api.ts";

// The organisation's room as an ordered stream of events that survives disconnects: partysocket
// reconnects (with backoff), and on every `ready` the events missed meanwhile are fetched from
// GET /v1/events after the last changeVersion seen, before any live one; each event is handed
// on exactly once, in changeVersion order (the README's reconnect recipe).

export type RoomStatus = { kind: "connected"; caughtUp: number; reconnected: boolean } | { kind: "disconnected" };

export interface RoomStream {
  close(): void;
}

export function streamRoom(options: {
  api: ListenApi;
  url: string;
  key: string;
  /** Sent as the socket's connection query (the catch-up's is the ListenApi's). */
  filter?: ListenFilter;
  /** The changeVersion already seen: only later events are handed on. */
  after: number;
  onEvent(event: OpsEvent): void;
  onStatus(status: RoomStatus): void;
  /** The stream cannot go on (its events are past retention): it is closed. */
  onFatal(error: Error): void;
}): RoomStream {
  let seen = options.after;
  let connectedBefore = false;
  let open = false;
  let connections = 0;
  const deliver = (event: OpsEvent) => {
    if (event.changeVersion <= seen) return false;
    seen = event.changeVersion;
    options.onEvent(event);
    return true;
  };

  const query = new URLSearchParams({ apiKey: options.key, ...(options.filter as Record<string, string> | undefined) });
  const socket = new ReconnectingWebSocket(`${options.url}?${query}`, [], {
    WebSocket,
    minReconnectionDelay: 500,
    maxReconnectionDelay: 10_000,
  });
  /** Live events that arrive while a catch-up is still fetching; null when none is running. */
  let held: OpsEvent[] | null = null;
  socket.addEventListener("message", (message) => {
    const data = JSON.parse(String(message.data)) as OpsEvent | { type: "ready"; changeVersion: number };
    if (data.type !== "ready") {
      if (held) held.push(data as OpsEvent);
      else deliver(data as OpsEvent);
      return;
    }
    held = [];
    // A catch-up that finishes after its connection was replaced must not touch the new one's state.
    const connection = ++connections;
    options.api.eventsAfter(seen).then(
      (missed) => {
        if (connection !== connections) return;
        const caughtUp = missed.events.filter(deliver).length;
        // A filtered stream may have seen nothing for a long while: it is exact up to the answer's
        // changeVersion, so the next catch-up starts there (and never falls past retention).
        seen = Math.max(seen, missed.changeVersion);
        for (const event of held ?? []) deliver(event);
        held = null;
        open = true;
        options.onStatus({ kind: "connected", caughtUp, reconnected: connectedBefore });
        connectedBefore = true;
      },
      (error: unknown) => {
        if (connection !== connections) return;
        // Past retention, reconnecting cannot help: say so and stop.
        if (error instanceof ResyncRequired) return options.onFatal(error);
        // The API could not be asked: drop this connection, the next one catches up again.
        socket.reconnect(4000, "catch-up failed");
      },
    );
  });
  let closing = false;
  socket.addEventListener("close", () => {
    connections++;
    held = null;
    if (open && !closing) options.onStatus({ kind: "disconnected" });
    open = false;
  });
  return {
    close() {
      closing = true;
      socket.close(1000, "listen stopped");
    },
  };
}
