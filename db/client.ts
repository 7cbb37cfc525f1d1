import type { NeonRequest, NeonTarget } from "./neon-http.ts";
import { PendingAcknowledgements } from "./statements/engine/acknowledgements.ts";

/**
 * The one place that knows which Postgres driver the Worker uses: Neon's SQL over HTTP, one HTTP
 * request per statement, sent as @neondatabase/serverless's `neon()` sends it (db/neon-http.ts). Every call of the API is one SQL statement
 * (db/statements/), so a call is one request and one database round trip, key check
 * included: no connection start-up, no pool, nothing to close. (Over a WebSocket `Pool`, each
 * request paid the connection start-up first: 2 round trips; bench/results/README.md section 3 measures 1.)
 * Everything else talks to `Database`, so choosing another driver touches this file only.
 */
export interface DatabaseConfig {
  url: string;
  /**
   * host:port of the local Neon-compatible /sql endpoint (cli/lib/sql-endpoint.ts) that stands in
   * for Neon's in development and tests; unset against Neon.
   */
  localSqlEndpoint?: string | undefined;
  /**
   * Compile every statement both ways, ours and drizzle's, and fail on a difference
   * (db/statements/engine/compile.ts). The tests' Workers run so; a deployment does not.
   */
  checkStatements?: boolean | undefined;
}

export interface QueryResult<Row> {
  rows: Row[];
}

export interface Statement {
  text: string;
  params: unknown[];
}

export interface Database {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<Row>>;
  /**
   * Runs statements as one transaction sent in one request (Neon's non-interactive transaction
   * over HTTP): every statement commits, or, when one fails, none does. One round trip.
   */
  transaction(statements: Statement[]): Promise<QueryResult<Record<string, unknown>>[]>;
  /**
   * Set on the handle a batch's operation runs against (services/batch.ts): its statements end in
   * the batch's step check (db/statements/engine/sql.ts runWrite), so a refused operation undoes the batch.
   */
  readonly batch?: BatchStep;
  /**
   * Set on the Worker's handles: the rooms' acknowledgements it is told wait here, and its next
   * write statement records them (db/statements/engine/acknowledgements.ts) instead of a request of their
   * own. Unset (the CLI, tests in Node), an acknowledgement is recorded at once.
   */
  readonly acknowledgements?: PendingAcknowledgements;
  /** Queries sent by this handle so far (the round-trip budget is checked against it in tests). */
  readonly queryCount: number;
  /** Statements are compiled both ways and compared (DatabaseConfig.checkStatements). */
  readonly checksStatements?: boolean | undefined;
}

/** Where a batched statement stands: its operation's index, and whether the batch stores its answer. */
export interface BatchStep {
  operation: number;
  /** The batch came with an Idempotency-Key: each operation's answer is kept for the replay. */
  remember: boolean;
  /** The id a create gives its record, chosen before the batch runs so later operations can name it ($ref.id). */
  newId?: string | undefined;
}

/** A database a Node process opened (node-postgres pool): it must be closed when done. */
export interface ClosableDatabase extends Database {
  close(): Promise<void>;
}

/** The database could not be reached or dropped the connection: nothing was committed. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super("database unavailable", { cause });
    this.name = "DatabaseUnavailableError";
  }
}

/**
 * Neon's proxy refused the request itself, before any statement of it committed: this
 * deployment's configuration is wrong (the credentials, the database name) or we sent a request,
 * or asked for an answer, that it never takes. Not an outage: retrying does not help. The API
 * answers 500 and logs the cause (docs/api.md "What the database's failures answer").
 */
export class DatabaseRefusedError extends Error {
  constructor(cause: unknown) {
    super("database refused the request", { cause });
    this.name = "DatabaseRefusedError";
  }
}

/**
 * Neon refuses every connection until someone acts: the compute time quota is used up (the Free
 * plan's monthly allowance, or a limit set on the project) or the endpoint is disabled. Still a
 * 503 (nothing was written), but one a client should not retry at once: `reason` says which.
 */
export class DatabaseSuspendedError extends DatabaseUnavailableError {
  constructor(
    cause: unknown,
    readonly reason: "database_quota_exceeded" | "database_disabled",
  ) {
    super(cause);
    this.name = "DatabaseSuspendedError";
  }
}

// The control plane's refusals to wake the compute (proxy/src/control_plane/errors.rs, messages.rs
// get_user_facing_message): its own message, or the proxy's fallback for its status.
const QUOTA_EXCEEDED = /exceeded the compute time quota|Check your quotas/;
const ENDPOINT_DISABLED = /endpoint is disabled|endpoint has been disabled/;

const SQLSTATE = /^[0-9A-Z]{5}$/;
// SQLSTATE classes that mean "the server is not there for you", not "your statement is wrong";
// 08P01 is also Neon's answer when it cancelled the statement (proxy/src/serverless/sql_over_http.rs).
// 57014 (query_canceled): the database's statement_timeout ended the statement, which committed nothing.
const UNAVAILABLE_STATES = /^(08|53|57P|57014)/;
// Refused at connect time: the credentials (class 28: 28P01 password, 28000 role) or the database (3D000).
const CONFIGURATION_STATES = /^(28|3D000$)/;
// Neon's code-less 400s that refuse the request as sent (proxy/src/serverless/error.rs
// ReadPayloadError::Parse and ConnInfoError, proxy/src/auth/mod.rs AuthError, sql_over_http.rs
// InvalidIsolationLevel). Any other code-less answer may be a connection lost under a statement
// that committed, so it stays "unavailable"; a reworded refusal falls on that safe side too.
const REFUSALS =
  /^(could not parse the HTTP request body|password authentication failed|invalid isolation level|invalid header|invalid connection string|incorrect scheme|missing (database name|username|hostname|authentication credentials)|invalid (database name|username|hostname)|This IP address .* is not allowed|This connection is trying to access this endpoint from a blocked network)/;
// 413: a request body over Neon's limit; 507: an answer over it (sql_over_http.rs; both 10 MiB).
const REFUSING_STATUSES = new Set([413, 507]);
// The driver's error for an answer other than 200 or 400 (@neondatabase/serverless, index.mjs).
const SERVER_ERROR = /^Server error \(HTTP status (\d{3})\): ([\s\S]*)$/;

/** Neon's answer as the driver reports it; status null when none came (fetch failed, timed out). */
function neonAnswerOf(error: unknown): { status: number | null; code: string; message: string } {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : "";
  const server = SERVER_ERROR.exec(text);
  if (server) {
    // Only a 400's body becomes the error's fields; any other's is in the message, as sent.
    let body: { code?: unknown; message?: unknown } = {};
    try {
      body = JSON.parse(server[2]!) ?? {};
    } catch {
      // not JSON (a gateway's page): no code, no message
    }
    return {
      status: Number(server[1]),
      code: typeof body.code === "string" ? body.code : "",
      message: typeof body.message === "string" ? body.message : "",
    };
  }
  // A 400: the driver copies the body's fields onto its error, `code` "" when not from Postgres.
  return typeof code === "string" ? { status: 400, code, message: text } : { status: null, code: "", message: text };
}

/**
 * Statement errors pass through (the services settle them); a request Neon's proxy refused
 * becomes DatabaseRefusedError; anything else, the database out of reach, DatabaseUnavailableError.
 */
export function classifyDatabaseError(error: unknown): Error {
  const { status, code, message } = neonAnswerOf(error);
  if (status !== null && !code && QUOTA_EXCEEDED.test(message)) return new DatabaseSuspendedError(error, "database_quota_exceeded");
  if (status !== null && !code && ENDPOINT_DISABLED.test(message)) return new DatabaseSuspendedError(error, "database_disabled");
  if (CONFIGURATION_STATES.test(code)) return new DatabaseRefusedError(error);
  if (status === 400 && SQLSTATE.test(code) && !UNAVAILABLE_STATES.test(code)) return error as Error;
  if (status !== null && !code && (REFUSING_STATUSES.has(status) || (status === 400 && REFUSALS.test(message))))
    return new DatabaseRefusedError(error);
  return new DatabaseUnavailableError(error);
}

/**
 * A statement that has not answered in this long is reported unavailable (503) rather than left
 * hanging. As with any connection lost after sending, it may still have committed. The database
 * gives up on it at the same time (its statement_timeout: db/migrations/0012_statement-timeout.sql).
 */
export const STATEMENT_TIMEOUT_MS = 15_000;

let localSqlEndpoint: string | undefined;

type NeonHttp = typeof import("./neon-http.ts");
let neonHttp: Promise<NeonHttp> | undefined;

/**
 * db/neon-http.ts, with the driver's parsers and errors it uses, loaded by the first statement an
 * isolate sends: a request that sends none (a 404, a preflight, the discovery documents) never
 * pays for evaluating the driver (functions/index.ts).
 */
const loadNeonHttp = () => (neonHttp ??= import("./neon-http.ts"));

/** Where a statement is POSTed: the local endpoint, or Neon's for the host (the driver's default). */
const endpointOf = (hostname: string) =>
  localSqlEndpoint ? `http://${localSqlEndpoint}/sql` : `https://${hostname.replace(/^[^.]+\./, "api.")}/sql`;

/** The application_name the Worker's statements connect with, unless the database URL names one. */
const APPLICATION_NAME = "opsroom";

// The connection string as Neon reads it is derived once per database URL (db/neon-http.ts); so
// is the set of acknowledgements waiting for a write statement of this isolate to record them.
const perUrl = new Map<string, { target?: NeonTarget; acknowledgements: PendingAcknowledgements }>();

export function connectDatabase(config: DatabaseConfig): Database {
  // Plain http:// to the local Neon-compatible /sql endpoint, which runs the statement on a
  // connection it keeps open to Postgres (as Neon's endpoint does).
  if (config.localSqlEndpoint) localSqlEndpoint = config.localSqlEndpoint;
  let shared = perUrl.get(config.url);
  if (!shared) {
    shared = { acknowledgements: new PendingAcknowledgements() };
    perUrl.set(config.url, shared);
  }
  const { acknowledgements } = shared;
  /** Where this call's statement goes; a malformed URL fails the statement, as the driver's would. */
  const request = (neon: NeonHttp): NeonRequest => {
    shared.target ??= neon.neonTargetOf(config.url, APPLICATION_NAME);
    return { endpoint: endpointOf(shared.target.hostname), target: shared.target, signal: AbortSignal.timeout(STATEMENT_TIMEOUT_MS) };
  };
  let queryCount = 0;
  return {
    acknowledgements,
    checksStatements: config.checkStatements,
    async query<Row>(text: string, params: unknown[] = []) {
      queryCount++;
      try {
        const neon = await loadNeonHttp();
        return { rows: (await neon.neonQuery(request(neon), { query: text, params })) as Row[] };
      } catch (error) {
        throw classifyDatabaseError(error);
      }
    },
    async transaction(statements) {
      queryCount++;
      try {
        const neon = await loadNeonHttp();
        const results = await neon.neonTransaction(
          request(neon),
          statements.map((s) => ({ query: s.text, params: s.params })),
        );
        return results.map((rows) => ({ rows }));
      } catch (error) {
        throw classifyDatabaseError(error);
      }
    },
    get queryCount() {
      return queryCount;
    },
  };
}
