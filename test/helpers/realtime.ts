/* eslint-disable max-lines -- sockets, publishes and the server's control are used together by every realtime test. */
import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import PartySocket from "partysocket";
import { afterAll, afterEach, beforeAll, beforeEach, inject } from "vitest";
import WebSocket from "ws";
import { reserveFreePort } from "../../cli/dev/ports.ts";
import { PROJECT_ROOT } from "../../cli/lib/paths.ts";
import type { OpsEvent } from "../../domain/events.ts";
import { PRUNE_CRON, SWEEP_CRON } from "../../functions/sweep-plan.ts";
import { startRealtimeServer, type RealtimeServer } from "../setup/realtime-server.ts";
import { workerUrl } from "./api.ts";
import { query } from "./database.ts";
import { waitUntil } from "./wait.ts";

// The real realtime server of the run (`partykit dev`, test/setup/realtime-server.ts): sockets to
// an organisation's room, raw publishes with the shared secret, the Worker's cron sweep, and the
// control endpoint that stops and starts the server.
//
// Test files run in parallel and share the one realtime server. A file whose tests need the room
// up calls `useRoom()` at its top level (each test then holds a shared lease); a test that takes
// the room down does it inside `withRealtimeServer`, which waits for the exclusive lease first.

/** An event as the room sends it (the API's own event type). */
export type RoomEvent = OpsEvent;

export type RoomMessage = { type: "ready"; changeVersion: number } | RoomEvent;

export function realtimeHost(): string {
  return new URL(inject("realtimeUrl")).host;
}

// ---------------------------------------------------------------------------------------------
// Sockets

/** What a socket connects with: a key or a token, and the feed's filter if it wants one (docs/sync.md). */
export type Credential = ({ apiKey: string } | { token: string }) & {
  types?: string;
  projectId?: string;
  recordId?: string;
  excludeOwn?: string;
};

export interface RoomSocket {
  socket: PartySocket;
  /** Every message received, in order, with its arrival time (performance.now()). */
  messages: Array<{ message: RoomMessage; at: number }>;
  /** The `ready` messages received (one per (re)connection). */
  readies(): number[];
  /** The events received (everything but `ready`), in order. */
  events(): RoomEvent[];
  /** Resolves with the first `ready`'s changeVersion. */
  ready: Promise<number>;
  /** Waits until `done(events)` holds, or fails after `timeoutMs` saying what arrived. */
  waitFor(done: (events: RoomEvent[]) => boolean, timeoutMs?: number): Promise<RoomEvent[]>;
  /** Waits until at least `count` events arrived. */
  waitForEvents(count: number, timeoutMs?: number): Promise<RoomEvent[]>;
  close(): void;
}

const open = new Set<RoomSocket>();
afterEach(() => {
  for (const socket of open) socket.close();
});

/** A PartySocket (in Node, with `ws`) to the organisation's room, as a client would open it. */
export function openRoomSocket(
  orgId: string,
  credential: Credential,
  options: { onMessage?(message: RoomMessage): void } = {},
): RoomSocket {
  const socket = new PartySocket({
    host: realtimeHost(),
    party: "v1",
    room: orgId,
    query: credential,
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    // Tests restart the server: reconnect quickly.
    minReconnectionDelay: 200,
    maxReconnectionDelay: 1_000,
  });
  const messages: RoomSocket["messages"] = [];
  const listeners = new Set<() => void>();
  let firstReady: (changeVersion: number) => void;
  const ready = new Promise<number>((resolve) => (firstReady = resolve));
  socket.addEventListener("message", (event: MessageEvent) => {
    if (event.data === "pong") return;
    const message = JSON.parse(String(event.data)) as RoomMessage;
    messages.push({ message, at: performance.now() });
    options.onMessage?.(message);
    if (message.type === "ready") firstReady("changeVersion" in message ? message.changeVersion : -1);
    for (const listener of listeners) listener();
  });
  const readyTimed = withTimeout(ready, 10_000, () => `no ready message from room ${orgId}`);
  readyTimed.catch(() => {}); // not every test awaits it
  const events = () => messages.map((m) => m.message).filter((m): m is RoomEvent => m.type !== "ready");
  const room: RoomSocket = {
    socket,
    messages,
    readies: () =>
      messages
        .map((m) => m.message)
        .filter((m) => m.type === "ready")
        .map((m) => m.changeVersion),
    events,
    ready: readyTimed,
    waitFor(done, timeoutMs = 10_000) {
      return waitUntil(
        listeners,
        events,
        done,
        timeoutMs,
        (received) => `received ${JSON.stringify(received.map((e) => [e.type, e.changeVersion]))}`,
      );
    },
    waitForEvents(count, timeoutMs) {
      return room.waitFor((received) => received.length >= count, timeoutMs);
    },
    close() {
      open.delete(room);
      socket.close();
    },
  };
  open.add(room);
  return room;
}

/**
 * Sends "ping" on the socket and waits for the room's "pong" on the same connection. A socket's
 * messages arrive in the order the room sent them, so anything the room had sent this socket
 * before it answered has arrived when this resolves: the sentinel of "this socket was sent
 * nothing" for a socket that may receive no event at all.
 */
export function roundTrip(room: RoomSocket, timeoutMs = 10_000): Promise<void> {
  const pong = new Promise<void>((resolve) => {
    const listener = (event: MessageEvent) => {
      if (event.data !== "pong") return;
      room.socket.removeEventListener("message", listener);
      resolve();
    };
    room.socket.addEventListener("message", listener);
  });
  room.socket.send("ping");
  return withTimeout(pong, timeoutMs, () => `no pong from the room within ${timeoutMs} ms`);
}

/** Opens a socket and waits for its `ready`. */
export async function connectToRoom(orgId: string, credential: Credential): Promise<RoomSocket> {
  const room = openRoomSocket(orgId, credential);
  await room.ready;
  return room;
}

/**
 * The HTTP status the room answers a WebSocket upgrade with: 101 when the socket opens, else the
 * refusal (401, 403...) sent instead of opening it. A plain `ws` client, which reports the
 * refused upgrade's response (PartySocket only sees a failed connection and retries).
 */
export function upgradeStatus(orgId: string, params: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = `ws://${realtimeHost()}/parties/v1/${orgId}?${new URLSearchParams(params)}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once("open", () => {
      ws.close();
      resolve({ status: 101, body: "" });
    });
    ws.once("unexpected-response", (request, response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
      });
    });
    ws.once("error", reject);
  });
}

// ---------------------------------------------------------------------------------------------
// Publishing and the sweep

/** A made-up task event of the organisation, as the Worker would publish it (the room only relays what it is given). */
export function fakeEvent(orgId: string, changeVersion: number): RoomEvent {
  return {
    id: randomUUID(),
    type: "task.updated",
    orgId,
    changeVersion,
    occurredAt: new Date().toISOString(),
    data: { n: changeVersion },
    changes: null,
    actor: { type: "system", id: null, name: "opsroom" },
    batchId: null,
  };
}

/**
 * POSTs a message to the organisation's room as the Worker does, with the shared secret. A new
 * connection each time: a refusal answers before reading the body, and workerd then resets the
 * connection, which a pooled client would reuse for the next call.
 */
export function postToRoom(
  orgId: string,
  body: unknown,
  secret = inject("realtimeSecret"),
  realtimeUrl = inject("realtimeUrl"),
): Promise<{ status: number; body: any }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${realtimeUrl}/parties/v1/${orgId}`,
      {
        method: "POST",
        agent: false,
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(text);
          } catch {
            // left null
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

/**
 * Runs the Worker's cron handler (the outbox sweep, or with PRUNE_CRON the prunes) once, as Cloudflare's scheduler would (the
 * harness starts the Worker with testScheduled; see global-setup.ts). The sweep itself runs in
 * waitUntil, after this returns: poll for its effect.
 */
export async function runSweep(cron: typeof SWEEP_CRON | typeof PRUNE_CRON = SWEEP_CRON): Promise<void> {
  const response = await fetch(`${workerUrl()}/__scheduled?cron=${encodeURIComponent(cron)}`);
  const text = await response.text();
  if (!response.ok) throw new Error(`the scheduled handler answered ${response.status}: ${text.slice(0, 300)}`);
}

/** The organisation's events the room has acknowledged (published_at set), as changeVersions. */
export async function acknowledgedChangeVersions(orgId: string): Promise<number[]> {
  const rows = await query<{ change_version: string }>(
    "select change_version from events where org_id = $1 and published_at is not null order by change_version",
    [orgId],
  );
  return rows.map((row) => Number(row.change_version));
}

/**
 * Waits until the room's acknowledgement of at least `count` events of the organisation is
 * recorded. Publishing happens after the response, and the Worker records what the room
 * acknowledged with its next write, or the sweep does (db/statements/engine/acknowledgements.ts); an
 * event written while another test had the room down is left to the sweep (which sends events
 * older than 10 s again). So this runs the sweep while it waits.
 */
export async function waitForAcknowledged(orgId: string, count: number, timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let nextSweep = Date.now() + 200;
  for (;;) {
    const acknowledged = await acknowledgedChangeVersions(orgId);
    if (acknowledged.length >= count || Date.now() > deadline) return acknowledged;
    if (Date.now() > nextSweep) {
      nextSweep = Date.now() + 1_000;
      await runSweep().catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// ---------------------------------------------------------------------------------------------
// Taking turns with the realtime server

async function control(path: string): Promise<any> {
  const response = await fetch(`${inject("realtimeControlUrl")}${path}`, { method: "POST" });
  const body = await response.json();
  if (!response.ok) throw new Error(`realtime control ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

async function lease(mode: "shared" | "exclusive"): Promise<() => Promise<void>> {
  const { lease: id } = (await control(`/lease?mode=${mode}`)) as { lease: string };
  return async () => void (await control(`/release?lease=${id}`));
}

/** Call at the top level of a file whose tests need the realtime server up: each test holds a shared lease. */
export function useRoom(): void {
  let release: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    release = await lease("shared");
  }, 60_000);
  afterEach(async () => {
    await release?.();
    release = undefined;
  });
}

/** Runs `work` holding a shared lease: the realtime server stays up meanwhile. */
export async function withRoom<T>(work: () => Promise<T>): Promise<T> {
  const release = await lease("shared");
  try {
    return await work();
  } finally {
    await release();
  }
}

export interface RealtimeServerControl {
  /** Stops partykit (and its workerd); the room is unreachable until start(). */
  stop(): Promise<void>;
  /** Starts it again, same port, same room storage; resolves when it answers. */
  start(): Promise<void>;
}

/**
 * Runs `work` with the exclusive lease on the realtime server, so it may stop and start it without
 * pulling the room from under another test. The server is running again when this returns. A test
 * using this must not be in a file with useRoom() (it would wait for its own shared lease).
 */
export async function withRealtimeServer<T>(work: (server: RealtimeServerControl) => Promise<T>): Promise<T> {
  const release = await lease("exclusive");
  try {
    return await work({ stop: () => control("/stop"), start: () => control("/start") });
  } finally {
    await control("/start").finally(release);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message())), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error) => (clearTimeout(timer), reject(error)),
    );
  });
}

/**
 * A room server of the file's own beside the shared one, with room settings `vars` (partykit's
 * --var, e.g. "SUBREQUESTS_PER_INVOCATION=50"), checking credentials with the harness's Worker;
 * started before the file's tests, stopped after them, its log at test/artifacts/partykit-<logName>.log.
 * Answers its address once started.
 */
export function useOwnRoom(vars: string[], logName: string): () => string {
  let room: RealtimeServer | undefined;
  beforeAll(async () => {
    room = await startRealtimeServer({
      port: await reserveFreePort(),
      secret: inject("realtimeSecret"),
      apiUrl: inject("workerUrl"),
      vars,
      logFile: join(PROJECT_ROOT, "test", "artifacts", `partykit-${logName}.log`),
    });
  }, 60_000);
  afterAll(() => room?.dispose());
  return () => room!.url;
}
