import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startSqlEndpoint } from "../../cli/lib/sql-endpoint.ts";

// A Worker's SQL requests, counted from outside it: a SQL endpoint of its own (cli/lib/sql-endpoint.ts,
// Neon's protocol: one HTTP request per statement or per transaction) on the test database, behind
// a proxy that records each request before forwarding it. Start a Worker with
// LOCAL_SQL_ENDPOINT=127.0.0.1:<port> (test/helpers/worker.ts); when no other client uses that
// Worker, every request recorded while a call is in flight is the call's.

export interface SqlRequest {
  /** A transaction (Neon's { queries: [...] }) or one statement ({ query }). */
  statements: string[];
  transaction: boolean;
}

export const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

export const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};

export const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * The notification step a write's events take after its answer (services/notifications.ts: one
 * statement marks them notified and derives who is told). It is not the write's: the counts of a
 * call's own round trips leave it out, and test/notifications/round-trips.test.ts counts it.
 */
export const isNotificationStep = (request: SqlRequest) => request.statements.some((statement) => /\bnotified_at\b/.test(statement));

export interface SqlRecorder {
  /** The proxy's port, for LOCAL_SQL_ENDPOINT. */
  port: number;
  /** Every request, in the order it arrived. */
  requests: SqlRequest[];
  close(): Promise<void>;
}

export async function startSqlRecorder(databaseUrl: string): Promise<SqlRecorder> {
  const database = new URL(databaseUrl);
  const sqlEndpoint = await startSqlEndpoint({ target: { host: database.hostname, port: Number(database.port || 5432) } });
  const requests: SqlRequest[] = [];
  const proxy = createServer((req, res) => {
    void readBody(req).then((body) => {
      const parsed = JSON.parse(body.toString("utf8")) as { query?: string; queries?: Array<{ query: string }> };
      requests.push(
        parsed.queries
          ? { transaction: true, statements: parsed.queries.map((q) => q.query) }
          : { transaction: false, statements: [parsed.query ?? ""] },
      );
      const headers = { ...req.headers, host: sqlEndpoint.address, "content-length": String(body.length) };
      const forward = httpRequest(`http://${sqlEndpoint.address}${req.url}`, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on("error", () => res.destroy());
      forward.end(body);
    });
  });
  const port = await listen(proxy);
  return {
    port,
    requests,
    async close() {
      await close(proxy);
      await sqlEndpoint.close();
    },
  };
}
