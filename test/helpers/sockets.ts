import { WebSocket } from "ws";
import { realtimeHost } from "./realtime.ts";

// Plain `ws` sockets to the room (no reconnecting), so the room's close code and reason are seen
// as sent: the sockets of people, keys and applications that close when what opened them ends.

export interface Socket {
  ready: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  /** Answers "ping" with the room's "pong" on this connection: it is open, and was sent no close frame before it. */
  pong(): Promise<void>;
}

/**
 * A socket to the room. By default it ends its side as soon as the room's close frame arrives (see
 * below); `closeTimeout` leaves that to `ws`, which waits that long for the room's side to end the
 * connection after the closing handshake, as browsers do (Chromium 2 s, Firefox 1 s).
 */
export function socketWith(
  orgId: string,
  params: Record<string, string>,
  options: { closeTimeout?: number } = {},
): Socket & { messages: string[]; closingAt(): number | null } {
  // ws 8.23 takes closeTimeout (its default is 30 s); @types/ws does not declare it yet.
  const wsOptions: WebSocket.ClientOptions & { closeTimeout?: number } = options;
  const ws = new WebSocket(`ws://${realtimeHost()}/parties/v1/${orgId}?${new URLSearchParams(params)}`, wsOptions);
  const messages: string[] = [];
  ws.on("message", (data) => messages.push(String(data)));
  let closingAt: number | null = null;
  const ready = new Promise<void>((resolve, reject) => {
    ws.on("message", (data) => {
      if (String(data) !== "pong" && (JSON.parse(String(data)) as { type?: string }).type === "ready") resolve();
    });
    ws.once("unexpected-response", (_request, response) => reject(new Error(`refused: ${response.statusCode}`)));
    ws.once("error", reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })),
  );
  // The socket turns CLOSING when the room's close frame (code and reason) arrives; `partykit dev`
  // then holds the TCP connection about 10 s. Ending it at once still reports the frame's code.
  const poll = setInterval(() => {
    if (ws.readyState !== WebSocket.CLOSING) return;
    closingAt = performance.now();
    clearInterval(poll);
    if (options.closeTimeout === undefined) ws.terminate();
  }, 5);
  void closed.then(() => clearInterval(poll));
  const pong = () =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (data: unknown) => {
        if (String(data) !== "pong") return;
        ws.off("message", onMessage);
        resolve();
      };
      ws.on("message", onMessage);
      ws.once("close", () => reject(new Error("closed instead of answering pong")));
      ws.send("ping");
    });
  return { ready, closed, pong, messages, closingAt: () => closingAt };
}

/** A token request for a socket that must be refused, answered with the HTTP status of the upgrade. */
export async function refusedStatus(orgId: string, token: string): Promise<number> {
  const socket = socketWith(orgId, { token });
  return socket.ready.then(
    () => 101,
    (error: Error) => Number(/refused: (\d+)/.exec(error.message)?.[1] ?? 0),
  );
}
