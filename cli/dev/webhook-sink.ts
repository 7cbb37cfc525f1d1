import { createServer } from "node:http";

// The demo's webhooks point here in `npm run dev`: a local receiver that answers every delivery
// 204 and prints one line for it, so the demo shows webhooks working end to end (the console's
// delivery log fills with successes) instead of failing lookups of a public host offline.

export const WEBHOOK_SINK_PORT = 8790;
export const WEBHOOK_SINK_URL = `http://127.0.0.1:${WEBHOOK_SINK_PORT}`;

/** A delivery's body is an event; only its type and changeVersion are printed. */
function describe(body: string): string {
  try {
    const event = JSON.parse(body) as { type?: unknown; changeVersion?: unknown };
    return `${String(event.type)}${typeof event.changeVersion === "number" && event.changeVersion > 0 ? ` #${event.changeVersion}` : ""}`;
  } catch {
    return `${body.length} bytes, not JSON`;
  }
}

/** Starts the receiver; answers a stop function, or null when the port is taken (the demo's deliveries then fail and are retried, as with any receiver that is down). */
export async function startWebhookSink(print: (line: string) => void): Promise<(() => Promise<void>) | null> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1 << 20) chunks.push(chunk);
    });
    request.on("end", () => {
      response.writeHead(204).end();
      print(`${request.method} ${request.url} ← ${describe(Buffer.concat(chunks).toString("utf8"))}`);
    });
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen({ port: WEBHOOK_SINK_PORT, host: "127.0.0.1" }, () => resolve(true));
  });
  return listening ? () => new Promise<void>((resolve) => server.close(() => resolve())) : null;
}
