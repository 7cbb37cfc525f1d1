import { randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RealtimeServer } from "./realtime-server.ts";

// A small control endpoint on 127.0.0.1 for the test files (which run in other processes): stop
// and start the realtime server, and take turns with it. Test files run in parallel, so a test
// that takes the room down must not do so under another file's sockets: tests that need the room
// up hold a shared lease, a test that stops it holds the exclusive lease (test/helpers/realtime.ts).
//
//   POST /lease?mode=shared|exclusive  -> { lease }   (waits for its turn; first come, first served)
//   POST /release?lease=ID
//   POST /stop, POST /start             -> { running }
//   GET  /                              -> { running, holders, waiting }

/** A lease not released by then is dropped (a crashed test file must not block the others). */
const LEASE_MAX_MS = 120_000;

type Mode = "shared" | "exclusive";

interface Waiter {
  mode: Mode;
  grant(id: string): void;
}

export interface RealtimeControl {
  url: string;
  close(): Promise<void>;
}

// eslint-disable-next-line max-lines-per-function -- the lease's holders and waiters are state its granting, its HTTP handler and close share; one closure holds them
export async function startRealtimeControl(realtime: RealtimeServer): Promise<RealtimeControl> {
  const holders = new Map<string, { mode: Mode; timer: NodeJS.Timeout }>();
  const waiting: Waiter[] = [];

  const release = (id: string) => {
    const holder = holders.get(id);
    if (!holder) return;
    clearTimeout(holder.timer);
    holders.delete(id);
    grantWhatCan();
  };

  const grantWhatCan = () => {
    const modes = [...holders.values()].map((h) => h.mode);
    for (;;) {
      const next = waiting[0];
      if (!next) return;
      const free = modes.length === 0;
      const sharing = next.mode === "shared" && !modes.includes("exclusive");
      if (!free && !sharing) return;
      waiting.shift();
      const id = randomUUID();
      holders.set(id, { mode: next.mode, timer: setTimeout(() => release(id), LEASE_MAX_MS).unref() });
      modes.push(next.mode);
      next.grant(id);
    }
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://control");
    try {
      if (req.method === "POST" && url.pathname === "/lease") {
        const mode: Mode = url.searchParams.get("mode") === "exclusive" ? "exclusive" : "shared";
        let granted: string | undefined;
        const waiter: Waiter = {
          mode,
          grant: (id) => {
            granted = id;
            send(res, 200, { lease: id });
          },
        };
        // The caller gave up waiting (its test timed out): forget it, or release what it got late.
        res.once("close", () => {
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          else if (granted && !res.writableFinished) release(granted);
          grantWhatCan();
        });
        waiting.push(waiter);
        grantWhatCan();
        return;
      }
      if (req.method === "POST" && url.pathname === "/release") {
        release(url.searchParams.get("lease") ?? "");
        return send(res, 200, { released: true });
      }
      if (req.method === "POST" && url.pathname === "/stop") {
        await realtime.stop();
        return send(res, 200, { running: realtime.running() });
      }
      if (req.method === "POST" && url.pathname === "/start") {
        await realtime.start();
        return send(res, 200, { running: realtime.running() });
      }
      if (req.method === "GET" && url.pathname === "/") {
        return send(res, 200, { running: realtime.running(), holders: [...holders.values()].map((h) => h.mode), waiting: waiting.length });
      }
      send(res, 404, { error: "not found" });
    } catch (error) {
      send(res, 500, { error: String(error) });
    }
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const holder of holders.values()) clearTimeout(holder.timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (!res.headersSent) res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
