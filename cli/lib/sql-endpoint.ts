import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import pg from "pg";
import { modelledCompute, NEON_COLD_START, type ColdStart, type Compute } from "./sql-endpoint/compute.ts";
import {
  cancelled,
  connectFailed,
  errorAnswer,
  NEON_FAULTS,
  statementFailed,
  type Answer,
  type NeonFault,
  type PostgresFields,
} from "./sql-endpoint/neon-answers.ts";
import { parsePayload, readBody, type QueryData } from "./sql-endpoint/payload.ts";
import { runBatch, runSingle, type Connection } from "./sql-endpoint/queries.ts";

export type { NeonFault } from "./sql-endpoint/neon-answers.ts";
export type { ColdStart } from "./sql-endpoint/compute.ts";

export interface SqlEndpoint {
  /** host:port to hand to the Worker as LOCAL_SQL_ENDPOINT. */
  address: string;
  port: number;
  /** Changes the added delay (each way) for requests from now on. */
  setDelay(ms: number): void;
  /** Changes the compute's cold start (sql-endpoint/compute.ts) from now on; false: never suspended. */
  setColdStart(coldStart: ColdStart | false): void;
  /** How many times the compute woke from suspension. */
  wakes(): number;
  /**
   * The fault mode, for tests: the next request any of whose statements matches `sql` is answered
   * with Neon's answer for `fault` (sql-endpoint/neon-answers.ts NEON_FAULTS) instead of being run;
   * resolves when it has been. Only an endpoint of a test's own is given faults (the failure stack,
   * test/helpers/failure-stack.ts), so no other test file ever meets one.
   */
  failNext(fault: NeonFault, sql: RegExp): Promise<void>;
  close(): Promise<void>;
}

/**
 * The local stand-in for Neon's SQL-over-HTTP endpoint: `POST /sql` (the way the Worker's driver,
 * `neon()`, sends each statement as one HTTP request) runs the statement on a small pool of
 * connections it keeps open, and answers in Neon's format (raw text values, as the driver asks
 * with Neon-Raw-Text-Output; errors with Postgres's error fields). Like Neon's endpoint it
 * authenticates and keeps connections warm itself, so a call costs one request. Locally the server
 * trusts loopback, so no password is really checked: this is a development stand-in, listening on
 * loopback only.
 *
 * Where it matters it behaves as Neon's proxy does, each rule from its source
 * (neondatabase/neon, proxy/src/serverless/) and named where it is kept: a body over 10 MiB is 413
 * and one serde_json refuses (a lone surrogate escape) 400 with no code (sql-endpoint/payload.ts);
 * an answer past 10 MiB is 507, checked before each row over the whole answer; a client that goes
 * away has its statement cancelled and its batch rolled back (sql-endpoint/queries.ts); errors are
 * answered with Neon's bodies and statuses (sql-endpoint/neon-answers.ts); a connection is reset
 * (rolled back, settings, advisory locks and temporary tables dropped) before another request
 * gets it (putBack).
 *
 * It always dials its own target and ignores the host the driver names, so it cannot be used to
 * reach anything else. `delayMs` holds every request and its answer back by that long, to measure
 * database round trips; `coldStart` suspends its compute after idleness as Neon does, and the
 * first request after waits for its wake.
 */
export async function startSqlEndpoint(options: {
  target: { host: string; port: number };
  port?: number;
  delayMs?: number;
  /** Connections per database it keeps (default 10). */
  poolSize?: number;
  /** The compute's suspension after idleness and its wake (default Neon's: NEON_COLD_START); false: never suspended. */
  coldStart?: ColdStart | false;
}): Promise<SqlEndpoint> {
  const host = "127.0.0.1";
  let delay = options.delayMs ?? 0;
  const compute = modelledCompute(options.coldStart ?? NEON_COLD_START);
  const sql = sqlEndpoint(options.target, options.poolSize ?? 10, () => delay, compute);
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
    setColdStart: compute.configure,
    wakes: compute.wakes,
    failNext: sql.failNext,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => void sql.close().then(resolve, resolve));
      }),
  };
}

interface Fault {
  fault: NeonFault;
  sql: RegExp;
  done: () => void;
}

/** sql_over_http.rs map_header_to_isolation_level: Neon-Batch-Isolation-Level's values. */
const ISOLATION_LEVELS: Record<string, string> = {
  Serializable: "serializable",
  ReadUncommitted: "read uncommitted",
  ReadCommitted: "read committed",
  RepeatableRead: "repeatable read",
};

/** A pool of connections to the target per set of credentials, as Neon's pooler keeps one per role and database. */
function connectionPools(target: { host: string; port: number }, poolSize: number) {
  const pools = new Map<string, pg.Pool>();
  const poolFor = ({ user, password, database }: Credentials): pg.Pool => {
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
  const close = () => Promise.all([...pools.values()].map((pool) => pool.end().catch(() => {}))).then(() => pools.clear());
  return { poolFor, close };
}

/** The transaction a batch runs in, from its headers; and the headers its answer names them with, as Neon's does. */
function batchModes(header: (name: string) => string | undefined, isolation: string | undefined) {
  const readOnly = header("neon-batch-read-only") === "true";
  const deferrable = header("neon-batch-deferrable") === "true";
  const begin = [
    "begin",
    isolation && `isolation level ${ISOLATION_LEVELS[isolation]}`,
    readOnly && "read only",
    deferrable && "deferrable",
  ]
    .filter(Boolean)
    .join(" ");
  const modes = {
    ...(isolation && { "neon-batch-isolation-level": isolation }),
    ...(readOnly && { "neon-batch-read-only": "true" }),
    ...(deferrable && { "neon-batch-deferrable": "true" }),
  };
  return { begin, modes };
}

/**
 * What Neon's pool runs on a connection as it is put back, so nothing of one request's session
 * reaches the next (libs/proxy/tokio-postgres2/src/client.rs `reset_session_background`, called by
 * proxy/src/serverless/conn_pool_lib.rs EndpointConnPool::put since neon#12681): DISCARD ALL but
 * DISCARD PLANS, after a ROLLBACK of whatever transaction a request left open.
 */
const SESSION_RESET = `ROLLBACK;
CLOSE ALL;
SET SESSION AUTHORIZATION DEFAULT;
RESET ALL;
DEALLOCATE ALL;
UNLISTEN *;
SELECT pg_advisory_unlock_all();
DISCARD TEMP;
DISCARD SEQUENCES;`;

/**
 * A connection back to its pool: a broken one is dropped; any other is reset first, in the
 * background as Neon's is (the answer does not wait for it), and dropped if the reset fails
 * (EndpointConnPool::put "could not be reset").
 */
function putBack({ client, broken }: Connection): void {
  if (broken) return client.release(true);
  // A connection lost during the reset fails it; the event needs a listener meanwhile (see `lost`).
  const ignore = () => {};
  client.on("error", ignore);
  client.query(SESSION_RESET).then(
    () => (client.off("error", ignore), client.release()),
    (error: Error) => (client.off("error", ignore), client.release(error)),
  );
}

/** Neon's SQL-over-HTTP protocol, the part the driver uses: one query, or a batch in one transaction. */
function sqlEndpoint(target: { host: string; port: number }, poolSize: number, delay: () => number, compute: Compute) {
  const pools = connectionPools(target, poolSize);
  const faults: Fault[] = [];
  const sleep = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

  /** The fault armed for one of these statements, if any: taken, so it answers once. */
  const takeFault = (statements: QueryData[]): NeonFault | null => {
    const index = faults.findIndex((f) => statements.some((s) => f.sql.test(s.query)));
    if (index < 0) return null;
    const [taken] = faults.splice(index, 1);
    taken!.done();
    return taken!.fault;
  };

  const answer = async (request: IncomingMessage, gone: AbortSignal): Promise<Answer> => {
    // The order of sql_over_http.rs handle_db_inner: the connection string, the headers, the body.
    const connectionString = request.headers["neon-connection-string"];
    if (typeof connectionString !== "string") return errorAnswer(400, "invalid header: neon-connection-string");
    const header = (name: string) => request.headers[name] as string | undefined;
    const isolation = header("neon-batch-isolation-level");
    if (isolation !== undefined && !ISOLATION_LEVELS[isolation]) return errorAnswer(400, "invalid isolation level");
    const body = await readBody(request);
    if (!Buffer.isBuffer(body)) return body;
    const payload = parsePayload(body);
    if ("status" in payload) return payload;
    const credentials = credentialsOf(connectionString);
    const fault = takeFault("single" in payload ? [payload.single] : payload.batch);
    if (fault) return NEON_FAULTS[fault](credentials.user, credentials.database);

    // A suspended compute wakes before the connection is made (sql-endpoint/compute.ts).
    await compute.ready();
    let client: pg.PoolClient;
    try {
      client = await pools.poolFor(credentials).connect();
    } catch (error) {
      compute.release();
      return connectFailed(error as Error & PostgresFields);
    }
    const connection: Connection = { client, broken: false };
    // A connection lost while the client is out of the pool fails its query; the client's "error"
    // event needs a listener too, or it is an uncaught exception that ends this process (the pool
    // listens only while a client is idle).
    const lost = () => (connection.broken = true);
    client.on("error", lost);
    const arrayMode = header("neon-array-mode") === "true";
    try {
      // Gone while it waited for a connection: sql_over_http.rs SqlOverHttpCancel::Connect.
      if (gone.aborted) return cancelled();
      if ("single" in payload) return await runSingle(connection, payload.single, arrayMode, gone);
      const { begin, modes } = batchModes(header, isolation);
      const answered = await runBatch(connection, payload.batch, arrayMode, begin, gone);
      return answered.status === 200 ? { ...answered, headers: modes } : answered;
    } catch (error) {
      connection.broken = true;
      return statementFailed(error as Error & PostgresFields);
    } finally {
      client.off("error", lost);
      putBack(connection);
      compute.release();
    }
  };

  return {
    async handle(request: IncomingMessage, response: ServerResponse) {
      // The client gone before its answer (Neon: the request's CancellationToken, serverless/mod.rs).
      const gone = new AbortController();
      response.on("close", () => response.writableFinished || gone.abort());
      await sleep(delay());
      const { status, body, headers } = await answer(request, gone.signal).catch((error: unknown) => errorAnswer(500, String(error)));
      await sleep(delay());
      if (response.destroyed) return;
      response.writeHead(status, { "content-type": "application/json", ...headers }).end(body);
    },
    failNext: (fault: NeonFault, sql: RegExp) => new Promise<void>((done) => void faults.push({ fault, sql, done })),
    close: pools.close,
  };
}

interface Credentials {
  user: string;
  password: string;
  database: string;
}

function credentialsOf(connectionString: string): Credentials {
  const url = new URL(connectionString);
  const user = decodeURIComponent(url.username);
  return { user, password: decodeURIComponent(url.password), database: decodeURIComponent(url.pathname.slice(1)) || user };
}
