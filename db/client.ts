import { neonConfig, Pool } from "@neondatabase/serverless";

/**
 * The one place that knows which Postgres driver the Worker uses: @neondatabase/serverless over
 * WebSocket, one pool per request (a Worker may not share sockets across requests).
 * Everything else talks to `Database`, so choosing another driver touches this file only.
 */
export interface DatabaseConfig {
  url: string;
  /** host:port of a local WebSocket-to-TCP bridge (development and tests); unset against Neon. */
  wsProxy?: string | undefined;
}

export interface QueryResult<Row> {
  rows: Row[];
}

export interface Database {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<Row>>;
  /** Queries sent by this handle so far (the round-trip budget is checked against it in tests). */
  readonly queryCount: number;
  close(): Promise<void>;
}

/** The database could not be reached or dropped the connection: nothing was committed. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super("database unavailable", { cause });
    this.name = "DatabaseUnavailableError";
  }
}

// SQLSTATE classes that mean "the server is not there for you", not "your statement is wrong".
const UNAVAILABLE_STATES = /^(08|53|57P)/;

/** Statement errors pass through; failures to reach the server become DatabaseUnavailableError. */
export function classifyDatabaseError(error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  const isStatementError = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !UNAVAILABLE_STATES.test(code);
  return isStatementError ? (error as Error) : new DatabaseUnavailableError(error);
}

function configureLocalBridge(wsProxy: string) {
  // Plain ws:// to the local bridge, which speaks plain TCP to Postgres: no TLS on either leg.
  neonConfig.wsProxy = (host, port) => `${wsProxy}/v2?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

export function connectDatabase(config: DatabaseConfig): Database {
  if (config.wsProxy) configureLocalBridge(config.wsProxy);
  // A database that does not answer within 5 s is unavailable (503), not a hung request.
  const pool = new Pool({ connectionString: config.url, max: 4, connectionTimeoutMillis: 5_000 });
  // An idle client that dies (database restart) must not crash the isolate.
  pool.on("error", () => {});
  let queryCount = 0;
  return {
    async query<Row>(text: string, params: unknown[] = []) {
      queryCount++;
      try {
        const result = await pool.query(text, params);
        return { rows: result.rows as Row[] };
      } catch (error) {
        throw classifyDatabaseError(error);
      }
    },
    get queryCount() {
      return queryCount;
    },
    close: () => pool.end(),
  };
}
