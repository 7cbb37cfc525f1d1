import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach } from "vitest";
import type { RoomEvent } from "./realtime.ts";
import { waitUntil } from "./wait.ts";

// A real webhook receiver for the tests: node:http on 127.0.0.1 (a random port), verifying every
// request with the `standardwebhooks` package as an integrator would. It answers what the test
// tells it to (200 by default), records every request, and can be stopped and started again on
// the same port (a receiver that is down).

export interface Delivery {
  /** Verified by standardwebhooks with the webhook's secret. */
  verified: boolean;
  verifyError?: string;
  headers: Record<string, string>;
  body: string;
  /** The body parsed (the event). */
  event: RoomEvent;
  /** performance.now() when it arrived. */
  at: number;
  /** The status this receiver answered. */
  answered: number;
}

/**
 * A status, a status with a body and headers (a redirect's Location), or "hang": read the request
 * and never answer (a receiver that stalls).
 */
export type Answer = number | { status: number; body?: string; headers?: Record<string, string> } | "hang";

export interface Receiver {
  /** http://127.0.0.1:<port>/hooks/<name> */
  url: string;
  deliveries: Delivery[];
  /** The webhook's signing secret (known once the webhook is created): every request is verified with it. */
  useSecret(secret: string): void;
  /** How to answer the nth request (1-based); default 200. */
  answerWith(answer: (n: number, delivery: Delivery) => Answer): void;
  /** Waits until `done(deliveries)` holds, or fails after `timeoutMs` saying what arrived. */
  waitFor(done: (deliveries: Delivery[]) => boolean, timeoutMs?: number): Promise<Delivery[]>;
  waitForCount(count: number, timeoutMs?: number): Promise<Delivery[]>;
  /** Closes the port (connections are refused) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const open = new Set<Receiver>();
afterEach(async () => {
  await Promise.all([...open].map((receiver) => receiver.close()));
});

// eslint-disable-next-line max-lines-per-function -- the receiver's deliveries, listeners, verifier and answer are state its request handler and the controls it returns share; one closure holds both
export async function startReceiver(name = "opsroom"): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const listeners = new Set<() => void>();
  let verifier: Webhook | undefined;
  let answer: (n: number, delivery: Delivery) => Answer = () => 200;
  let port = 0;
  let server: Server | undefined;

  const handle = async (req: IncomingMessage, res: import("node:http").ServerResponse) => {
    const body = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      req.on("error", reject);
    });
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
    let verified = false;
    let verifyError: string | undefined;
    try {
      if (!verifier) throw new Error("no secret yet");
      verifier.verify(body, headers);
      verified = true;
    } catch (error) {
      verifyError = String(error);
    }
    let event: RoomEvent;
    try {
      event = JSON.parse(body) as RoomEvent;
    } catch {
      event = null as unknown as RoomEvent;
    }
    const delivery: Delivery = {
      verified,
      ...(verifyError ? { verifyError } : {}),
      headers,
      body,
      event,
      at: performance.now(),
      answered: 0,
    };
    const chosen = verified ? answer(deliveries.length + 1, delivery) : { status: 400, body: "signature did not verify" };
    if (chosen === "hang") {
      deliveries.push(delivery);
      for (const listener of listeners) listener();
      return;
    }
    const { status, body: text, headers: extra } = typeof chosen === "number" ? { status: chosen, body: undefined, headers: {} } : chosen;
    delivery.answered = status;
    deliveries.push(delivery);
    res.writeHead(status, { "content-type": "text/plain", ...extra }).end(text ?? (status < 300 ? "ok" : `answered ${status}`));
    for (const listener of listeners) listener();
  };

  const listen = async () => {
    const next = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
    // Longer than the room's pooled connections idle: a receiver closing an idle keep-alive
    // connection just as the room reuses it fails that attempt (and it is retried 5 s later).
    next.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => resolve());
    });
    port = (next.address() as AddressInfo).port;
    server = next;
  };
  const shut = async () => {
    const current = server;
    server = undefined;
    if (!current) return;
    await new Promise<void>((resolve) => {
      current.closeAllConnections();
      current.close(() => resolve());
    });
  };

  await listen();
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks/${name}`,
    deliveries,
    useSecret: (secret) => void (verifier = new Webhook(secret)),
    answerWith: (fn) => void (answer = fn),
    waitFor(done, timeoutMs = 10_000) {
      return waitUntil(
        listeners,
        () => deliveries,
        done,
        timeoutMs,
        (seen) => `receiver ${name} received ${JSON.stringify(seen.map((d) => [d.event?.type, d.event?.changeVersion, d.answered]))}`,
      );
    },
    waitForCount: (count, timeoutMs) => receiver.waitFor((received) => received.length >= count, timeoutMs),
    stop: shut,
    start: async () => {
      if (!server) await listen();
    },
    close: async () => {
      open.delete(receiver);
      await shut();
    },
  };
  open.add(receiver);
  return receiver;
}
