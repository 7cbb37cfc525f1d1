import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// Stands in for the PartyKit server while the API is tested: the Worker publishes each committed
// event to REALTIME_URL, and this acknowledges and keeps them, so tests stay hermetic (nothing
// reaches a developer's `npm run dev` room on :1999) and can see what was published
// (test/helpers/realtime.ts). The room itself is tested against the real PartyKit server.

export interface RealtimeStub {
  url: string;
  close(): Promise<void>;
}

export async function startRealtimeStub(secret: string): Promise<RealtimeStub> {
  const published = new Map<string, unknown[]>();

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://stub");
      const room = /^\/parties\/v1\/([^/]+)$/.exec(url.pathname)?.[1];
      if (req.method === "POST" && room) {
        if (req.headers.authorization !== `Bearer ${secret}`) return send(res, 401, { error: "bad secret" });
        const { events } = JSON.parse(await read(req)) as { events: Array<{ changeVersion: number }> };
        published.set(room, [...(published.get(room) ?? []), ...events]);
        return send(res, 200, { acknowledged: events.map((event) => event.changeVersion) });
      }
      const asked = /^\/published\/([^/]+)$/.exec(url.pathname)?.[1];
      if (req.method === "GET" && asked) return send(res, 200, { events: published.get(asked) ?? [] });
      send(res, 404, { error: "not found" });
    } catch (error) {
      send(res, 400, { error: String(error) });
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
