import { createConnection } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

export interface WsBridge {
  /** host:port to hand to the Worker as DB_WS_PROXY (neonConfig.wsProxy). */
  address: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The local stand-in for Neon's WebSocket proxy: each WebSocket from the neon driver becomes one
 * TCP connection to Postgres, bytes passed through both ways. It always dials its own target and
 * ignores the address the driver asks for, so it cannot be used to reach anything else.
 * `delayMs` holds every message back by that long, each way, to measure database round trips.
 */
export async function startWsBridge(options: {
  target: { host: string; port: number };
  port?: number;
  host?: string;
  delayMs?: number;
}): Promise<WsBridge> {
  const host = options.host ?? "127.0.0.1";
  const delay = options.delayMs ?? 0;
  const later = (fn: () => void) => (delay > 0 ? setTimeout(fn, delay) : fn());
  const server = new WebSocketServer({ host, port: options.port ?? 0 });
  const sockets = new Set<WebSocket>();

  server.on("connection", (ws) => {
    sockets.add(ws);
    const tcp = createConnection(options.target);
    tcp.setNoDelay(true);
    const pending: Buffer[] = [];
    tcp.on("connect", () => {
      for (const chunk of pending.splice(0)) tcp.write(chunk);
    });
    ws.on("message", (data: Buffer) =>
      later(() => (tcp.connecting ? pending.push(data) : tcp.writable && tcp.write(data))),
    );
    tcp.on("data", (data) => later(() => ws.readyState === ws.OPEN && ws.send(data)));
    const closeBoth = () => {
      sockets.delete(ws);
      tcp.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
    };
    ws.on("close", closeBoth);
    ws.on("error", closeBoth);
    tcp.on("close", closeBoth);
    tcp.on("error", closeBoth);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const port = (server.address() as { port: number }).port;
  return {
    address: `${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of sockets) ws.terminate();
        server.close(() => resolve());
      }),
  };
}
