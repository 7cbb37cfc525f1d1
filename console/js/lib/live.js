// @ts-check
// The console's connection to the organisation's realtime room: a plain WebSocket (no library to
// bundle), a fresh short-lived token for every (re)connect, and the documented catch-up: on every
// `ready`, GET /v1/events?after=<last applied> to the end, then the live events, each once.

import { ApiRefusal } from "./api.js";

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 10000];

/**
 * @param {{
 *   api: import("./api.js").Api,
 *   lastApplied: () => number,
 *   apply: (event: import("./store.js").OpsEvent, via: "live" | "catch-up") => boolean,
 *   onNotification: (notification: any) => void,
 *   onState: (state: "connecting" | "catching-up" | "live" | "reconnecting" | "failed", detail?: string) => void,
 * }} options
 */
export function connectLive({ api, lastApplied, apply, onNotification, onState }) {
  let attempt = 0;
  let stopped = false;
  /** @type {WebSocket | null} */
  let socket = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let retryTimer;

  async function open() {
    clearTimeout(retryTimer);
    onState("connecting", attempt > 0 ? `attempt ${attempt + 1}` : undefined);
    let token;
    try {
      token = await api.realtimeToken();
    } catch (error) {
      // A session (or role) the API refuses will not start working by retrying.
      if (error instanceof ApiRefusal && (error.status === 401 || error.status === 403)) return onState("failed", error.message);
      return retryLater();
    }
    const ws = new WebSocket(`${token.realtime.url}?token=${encodeURIComponent(token.token)}`);
    socket = ws;
    /** Live events that arrive while the catch-up is still fetching. */
    let held = /** @type {any[] | null} */ ([]);
    ws.addEventListener("message", async ({ data }) => {
      const message = JSON.parse(String(data));
      // A notification is the person's own, not an event of the organisation: no changeVersion, no catch-up.
      if (message.type === "notification") return onNotification(message.notification);
      if (message.type !== "ready") {
        if (held) held.push(message);
        else apply(message, "live");
        return;
      }
      attempt = 0;
      onState("catching-up");
      try {
        const missed = await api.eventsAfter(lastApplied());
        const caughtUp = missed.filter((event) => apply(event, "catch-up")).length;
        for (const event of held ?? []) apply(event, "live");
        held = null;
        onState("live", caughtUp > 0 ? `caught up on ${caughtUp} ${caughtUp === 1 ? "event" : "events"}` : undefined);
      } catch {
        ws.close(4000, "catch-up failed");
      }
    });
    ws.addEventListener("close", () => {
      if (socket === ws) socket = null;
      if (!stopped) retryLater();
    });
  }

  function retryLater() {
    const delay = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
    attempt++;
    onState("reconnecting", `in ${Math.round(delay / 100) / 10} s`);
    retryTimer = setTimeout(open, delay);
  }

  // Back on the network: no reason to wait out the backoff.
  addEventListener("online", () => {
    if (!socket && !stopped) open();
  });

  open();
  return {
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      socket?.close(1000, "console closed");
    },
  };
}
