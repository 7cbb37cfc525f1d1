import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import pg from "pg";

export interface SqlEndpoint {
  /** host:port to hand to the Worker as LOCAL_SQL_ENDPOINT. */
  address: string;
  port: number;
  /** Changes the added delay (each way) for requests from now on. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

/**
 * The local stand-in for Neon's SQL-over-HTTP endpoint: `POST /sql` (the way the Worker's driver,
 * `neon()`, sends each statement as one HTTP request) runs the statement on a small pool of
 * connections it keeps open, and answers in Neon's format (raw text values, array mode, errors as
 * 400 with Postgres's error fields). Like Neon's endpoint it authenticates and keeps connections
 * warm itself, so a call costs one request. Locally the server trusts loopback, so no password is
 * really checked: this is a development stand-in, listening on loopback only.
 *
 * It always dials its own target and ignores the host the driver names, so it cannot be used to
 * reach anything else. `delayMs` holds every request and its answer back by that long, to measure
 * database round trips.
 */
export async function startSqlEndpoint(options: {
  target: { host: string; port: number };
  port?: number;
  delayMs?: number;
  /** Connections per database it keeps (default 10). */
  poolSize?: number;
}): Promise<SqlEndpoint> {
  const host = "127.0.0.1";
  let delay = options.delayMs ?? 0;
  const sql = sqlEndpoint(options.target, options.poolSize ?? 10, () => delay);
  const http = createServer((request, response) => {
    if (request.method === "POST" && request.url?.split("?")[0] === "/sql") return void sql.handle(request, response);
    response.writeHead(404, { "content-type": "text/plain" }).end("this is a Neon-compatible SQL endpoint: POST /sql\n");
  });
  // The Worker keeps its connections here open between requests. Node closes an idle one after 5 s
  // by default, and a request the Worker sends on it at that moment fails ("Network connection
  // lost"), which a burst after a pause made likely: the client, not this server, ends idle ones.
  http.keepAliveTimeout = 10 * 60_000;
  http.headersTimeout = 10 * 60_000 + 1_000;
  await new Promise<void>((resolve, reject) => {
    http.once("listening", resolve);
    http.once("error", reject);
    http.listen(options.port ?? 0, host);
  });
  const port = (http.address() as { port: number }).port;
  return {
    address: `${host}:${port}`,
    port,
    setDelay(ms) {
      delay = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => void sql.close().then(resolve, resolve));
      }),
  };
}

/** Values as Postgres sent them (text): the driver parses them itself, by type oid. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };
/** The fields Neon copies from a Postgres error into its 400 answer (the driver reads them back). */
const ERROR_FIELDS = [
  "severity", "code", "detail", "hint", "position", "internalPosition", "internalQuery", "where",
  "schema", "table", "column", "dataType", "constraint", "file", "line", "routine",
] as const;

interface SqlQuery {
  query: string;
  params?: unknown[];
}

/** Neon's SQL-over-HTTP protocol, the part the driver uses: one query, or a batch in one transaction. */
function sqlEndpoint(target: { host: string; port: number }, poolSize: number, delay: () => number) {
  const pools = new Map<string, pg.Pool>();
  const sleep = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

  const poolFor = (connectionString: string): pg.Pool => {
    const url = new URL(connectionString);
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    const database = decodeURIComponent(url.pathname.slice(1)) || user;
    const key = JSON.stringify([user, password, database]);
    let pool = pools.get(key);
    if (!pool) {
      pool = new pg.Pool({
        host: target.host,
        port: target.port,
        user,
        password: password || undefined,
        database,
        max: poolSize,
        // As Neon's pooler queues a burst, so does this one: a wait for a free connection may take
        // as long as a statement may (db/client.ts), rather than failing a burst of writes that
        // queue on one organisation's row.
        connectionTimeoutMillis: 15_000,
        idleTimeoutMillis: 30_000,
      });
      // A pooled connection that dies (database dropped or restarted) is replaced, not fatal.
      pool.on("error", () => {});
      pools.set(key, pool);
    }
    return pool;
  };

  const run = (client: pg.PoolClient, { query, params }: SqlQuery) =>
    // Extended protocol always, as Neon does: one statement per query, parameters as text.
    client.query({ text: query, values: params ?? [], rowMode: "array", types: RAW_TEXT, queryMode: "extended" } as pg.QueryArrayConfig).then((result) => ({
      command: result.command,
      rowCount: result.rowCount,
      rows: result.rows,
      fields: result.fields.map((f) => ({
        name: f.name,
        dataTypeID: f.dataTypeID,
        tableID: f.tableID,
        columnID: f.columnID,
        dataTypeSize: f.dataTypeSize,
        dataTypeModifier: f.dataTypeModifier,
        format: "text",
      })),
      rowAsArray: true,
    }));

  const answer = async (request: IncomingMessage): Promise<{ status: number; body: unknown }> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const connectionString = request.headers["neon-connection-string"];
    let body: SqlQuery | { queries: SqlQuery[] };
    try {
      if (typeof connectionString !== "string") throw new Error("Neon-Connection-String header missing");
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (error) {
      return { status: 400, body: { message: String((error as Error).message) } };
    }
    let client: pg.PoolClient;
    try {
      client = await poolFor(connectionString).connect();
    } catch (error) {
      // Cannot reach Postgres: the driver reports a server error, the Worker a 503.
      return { status: 503, body: { message: `could not connect to Postgres: ${(error as Error).message}` } };
    }
    let broken = false;
    // A connection lost while the client is out of the pool fails its query (a 503 below); the
    // client's "error" event needs a listener too, or it is an uncaught exception that ends this
    // process (the pool listens only while a client is idle).
    const lost = () => (broken = true);
    client.on("error", lost);
    try {
      if ("queries" in body) {
        const header = (name: string) => request.headers[name] as string | undefined;
        const mode = [
          header("neon-batch-isolation-level") && `isolation level ${header("neon-batch-isolation-level")!.replace(/([a-z])([A-Z])/g, "$1 $2")}`,
          header("neon-batch-read-only") === "true" && "read only",
          header("neon-batch-deferrable") === "true" && "deferrable",
        ].filter(Boolean);
        await client.query(`begin ${mode.join(" ")}`);
        try {
          const results = [];
          for (const query of body.queries) results.push(await run(client, query));
          await client.query("commit");
          return { status: 200, body: { results } };
        } catch (error) {
          await client.query("rollback").catch(() => (broken = true));
          throw error;
        }
      }
      return { status: 200, body: await run(client, body) };
    } catch (error) {
      const fields = error as Record<string, unknown>;
      if (typeof fields.code === "string" && fields.severity !== undefined) {
        return { status: 400, body: Object.fromEntries([["message", (error as Error).message], ...ERROR_FIELDS.map((f) => [f, fields[f]])]) };
      }
      broken = true;
      return { status: 503, body: { message: `database connection failed: ${(error as Error).message}` } };
    } finally {
      client.off("error", lost);
      client.release(broken);
    }
  };

  return {
    async handle(request: IncomingMessage, response: ServerResponse) {
      await sleep(delay());
      const { status, body } = await answer(request).catch((error: unknown) => ({ status: 500, body: { message: String(error) } }));
      await sleep(delay());
      if (response.destroyed) return;
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    },
    close: () => Promise.all([...pools.values()].map((pool) => pool.end().catch(() => {}))).then(() => pools.clear()),
  };
}
