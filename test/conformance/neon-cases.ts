/* eslint-disable max-lines -- one ordered list of the conformance cases, each beside the Neon source it is taken from; neon-proxy.test.ts runs them in this order. */
import { proxyError } from "./neon-fixtures.ts";

// The requests of the conformance test (neon-proxy.test.ts), in order, each with the answer Neon
// gives it: taken from Neon's own tests (neondatabase/neon test_runner/regress/test_proxy.py; the
// driver's neondatabase/serverless tests/cli/http.test.ts) and its proxy's source. Every request is
// sent as the driver sends it (Neon-Raw-Text-Output and Neon-Array-Mode true), so values are
// Postgres's text: test_proxy.py's `{"answer": 42}` is `["42"]` here, as its
// test_sql_over_http_output_options shows. `$table` is a table of the run's own.

export interface Request {
  /** A JSON body, or the exact text to send. */
  body: unknown;
  headers?: Record<string, string>;
  /** The connection string, from the target's. */
  connection?: (url: URL) => URL;
  /** The client gives up after this long (the request is then answered by nobody). */
  abortAfterMs?: number;
}

export interface Result {
  rows?: unknown[];
  command?: string;
  rowCount?: number | null;
  rowAsArray?: boolean;
  fields?: Array<{ name: string; dataTypeID: number }>;
}

export interface Expected {
  /** 0: the client gave up before any answer (Request.abortAfterMs). */
  status: number;
  result?: Result;
  results?: Result[];
  /** Response headers: a value, or null for absent. */
  headers?: Record<string, string | null>;
  /** An error body: these fields, and Neon's whole set of fields (sql_over_http.rs `handle`). */
  error?: Record<string, unknown>;
  /** An error whose message varies past this start (a parser's position, a server's version). */
  messageStartsWith?: string;
}

/** Cancelling a running statement; refusing an unknown database; checking the password. */
export type Capability = "cancel" | "database names" | "passwords";

export interface Case {
  name: string;
  /** Where the expectation comes from. */
  from: string;
  request: Request;
  expect: Expected;
  /** What the target must do for this case to mean anything (Target.lacks says why one does not). */
  needs?: Capability;
  /** Once the request is answered (or abandoned), wait this long before the next case. */
  thenWaitMs?: number;
}

const q = (query: string, params: unknown[] = []) => ({ query, params });
const select = (rows: unknown[], fields?: Result["fields"]): Expected => ({
  status: 200,
  result: { rows, command: "SELECT", rowCount: rows.length, rowAsArray: true, ...(fields && { fields }) },
});
const TEST_PROXY = "test_proxy.py test_sql_over_http";
const INT4 = 23;
const TEXT = 25;
// Rows of about 6 MB: one answer of them fits Neon's 10 MiB, two in one batch do not.
const SIX_MB = "select repeat('x', 1000) from generate_series(1, 6000)";
const SLOW_INSERT = "with temp as (select pg_sleep($1) as sleep, $2::int as id) insert into $table (id) select id from temp";

export const CASES: Case[] = [
  {
    name: "select 42",
    from: TEST_PROXY,
    request: { body: q("select 42 as answer") },
    expect: select([["42"]], [{ name: "answer", dataTypeID: INT4 }]),
  },
  {
    name: "a parameter is text",
    from: TEST_PROXY,
    request: { body: q("select $1 as answer", [42]) },
    expect: select([["42"]], [{ name: "answer", dataTypeID: TEXT }]),
  },
  {
    name: "a parameter in arithmetic",
    from: TEST_PROXY,
    request: { body: q("select $1 * 1 as answer", [42]) },
    expect: select([["42"]], [{ name: "answer", dataTypeID: INT4 }]),
  },
  {
    name: "an array parameter",
    from: TEST_PROXY,
    request: { body: q("select $1::int[] as answer", [[1, 2, 3]]) },
    expect: select([["{1,2,3}"]]),
  },
  {
    name: "a JSON parameter",
    from: TEST_PROXY,
    request: { body: q("select $1::json->'a' as answer", [{ a: { b: 42 } }]) },
    expect: select([['{"b":42}']]),
  },
  {
    name: "an array of empty JSON objects",
    from: TEST_PROXY,
    request: { body: q("select $1::jsonb[] as answer", [[{}]]) },
    expect: select([['{"{}"}']]),
  },
  {
    name: "an array of JSON objects",
    from: TEST_PROXY,
    request: { body: q("select $1::jsonb[] as answer", [[{ foo: 1 }, { bar: 2 }]]) },
    expect: select([['{"{\\"foo\\": 1}","{\\"bar\\": 2}"}']]),
  },
  {
    name: "raw text in array mode",
    from: "test_proxy.py test_sql_over_http_output_options",
    request: { body: q("select 1 as n, 'a' as s, '{1,2,3}'::int4[] as arr") },
    expect: select([["1", "a", "{1,2,3}"]]),
  },
  {
    name: "raw text by column name",
    from: "test_proxy.py test_sql_over_http_output_options",
    request: { body: q("select 1 as n, 'a' as s, '{1,2,3}'::int4[] as arr"), headers: { "Neon-Array-Mode": "false" } },
    expect: { status: 200, result: { rows: [{ n: "1", s: "a", arr: "{1,2,3}" }], rowAsArray: false } },
  },
  {
    name: "CREATE has no row count",
    from: TEST_PROXY,
    request: { body: q("create table $table (id serial primary key, val int)") },
    expect: { status: 200, result: { rows: [], command: "CREATE", rowCount: null } },
  },
  {
    name: "INSERT counts its rows",
    from: TEST_PROXY,
    request: { body: q("insert into $table (val) values (10), (20), (30) returning id") },
    expect: { status: 200, result: { rows: [["1"], ["2"], ["3"]], command: "INSERT", rowCount: 3 } },
  },
  {
    name: "SELECT counts its rows",
    from: TEST_PROXY,
    request: { body: q("select id from $table order by id") },
    expect: select([["1"], ["2"], ["3"]]),
  },
  {
    name: "a batch: one transaction, its isolation level named in the answer",
    from: "test_proxy.py test_sql_over_http_batch",
    request: {
      body: {
        queries: [
          q("select 42 as answer"),
          q("select $1 as answer", [42]),
          q("insert into $table (val) values (40) returning id"),
          q("select count(*) from $table"),
        ],
      },
      headers: { "Neon-Batch-Isolation-Level": "Serializable", "Neon-Batch-Read-Only": "false", "Neon-Batch-Deferrable": "false" },
    },
    expect: {
      status: 200,
      results: [{ rows: [["42"]] }, { rows: [["42"]] }, { rows: [["4"]], command: "INSERT", rowCount: 1 }, { rows: [["4"]] }],
      headers: { "neon-batch-isolation-level": "Serializable", "neon-batch-read-only": null, "neon-batch-deferrable": null },
    },
  },
  {
    name: "a read-only deferrable batch says so",
    from: "test_proxy.py test_sql_over_http_batch",
    request: {
      body: { queries: [q("select 42 as answer")] },
      headers: { "Neon-Batch-Isolation-Level": "Serializable", "Neon-Batch-Read-Only": "true", "Neon-Batch-Deferrable": "true" },
    },
    expect: {
      status: 200,
      results: [{ rows: [["42"]] }],
      headers: { "neon-batch-isolation-level": "Serializable", "neon-batch-read-only": "true", "neon-batch-deferrable": "true" },
    },
  },
  {
    name: "array mode per statement of a batch",
    from: "test_proxy.py test_sql_over_http_batch_output_options",
    request: {
      body: {
        queries: [
          { ...q("select $1 as answer", [42]), arrayMode: true },
          { ...q("select $1 as answer", [42]), arrayMode: false },
        ],
      },
    },
    expect: {
      status: 200,
      results: [
        { rows: [["42"]], rowAsArray: true },
        { rows: [{ answer: "42" }], rowAsArray: false },
      ],
    },
  },
  {
    name: "a Postgres error: 400 with all its fields",
    from: "http.test.ts 'errors match WebSocket query errors'",
    request: { body: q("SELECT 123 WHERE x") },
    expect: {
      status: 400,
      error: {
        message: 'column "x" does not exist',
        code: "42703",
        severity: "ERROR",
        position: "18",
        routine: "errorMissingColumn",
        detail: null,
        hint: null,
      },
    },
  },
  {
    name: "too few parameters",
    from: "http.test.ts 'http queries with too few or too many parameters'",
    request: { body: q("SELECT $1") },
    expect: { status: 400, error: { code: "08P01", severity: "ERROR" }, messageStartsWith: "bind message supplies 0 parameters" },
  },
  {
    name: "a batch that fails writes nothing",
    from: "sql_over_http.rs BatchQueryData::process (the transaction is dropped)",
    request: { body: { queries: [q("insert into $table (val) values (50)"), q("select 1 / 0")] } },
    expect: { status: 400, error: { code: "22012" } },
  },
  { name: "...nothing", from: "", request: { body: q("select count(*) from $table") }, expect: select([["4"]]) },
  {
    name: "an answer past 10 MiB: 507",
    // test_sql_over_http_pool_dos's cross join is 25 million rows; this one is 120 000 wide ones,
    // as far past the limit, which the embedded database produces in a second.
    from: "test_proxy.py test_sql_over_http_pool_dos",
    request: {
      body: q("select * from generate_series(1, 400) a cross join generate_series(1, 300) b cross join (select repeat('x', 100)) c"),
    },
    expect: { status: 507, error: proxyError("response is too large (max is 10485760 bytes)") },
  },
  {
    name: "the limit covers a whole batch, which then writes nothing",
    from: "sql_over_http.rs query_to_json (the whole output is counted)",
    request: { body: { queries: [q("insert into $table (val) values (60)"), q(SIX_MB), q(SIX_MB)] } },
    expect: { status: 507, error: proxyError("response is too large (max is 10485760 bytes)") },
  },
  { name: "...nothing", from: "", request: { body: q("select count(*) from $table") }, expect: select([["4"]]) },
  // Neon's proxy before neon#11992 (July 2025) added each row's size and then checked, so one row
  // past the limit was 507; since, query_to_json checks the answer written so far before it writes
  // each row (`json_rows.as_buffer().len() > max_response_size_bytes`), so a single row past it is
  // answered and the row after it is refused.
  {
    name: "the limit is checked before each row: one row past it is answered",
    from: "sql_over_http.rs query_to_json (since neon#11992)",
    request: { body: q("select length(repeat('x', 11 * 1024 * 1024)) as n, repeat('x', 11 * 1024 * 1024) as big") },
    expect: { status: 200, result: { command: "SELECT", rowCount: 1 } },
  },
  {
    name: "...and a row after a row past it: 507",
    from: "sql_over_http.rs query_to_json (since neon#11992)",
    request: { body: q("select repeat('x', 11 * 1024 * 1024) as big from generate_series(1, 2)") },
    expect: { status: 507, error: proxyError("response is too large (max is 10485760 bytes)") },
  },
  {
    name: "a request body past 10 MiB: 413",
    from: "http/mod.rs read_body_with_limit, error.rs ReadPayloadError::BodyTooLarge",
    request: { body: q(`select 1 -- ${"x".repeat(10 * 1024 * 1024)}`) },
    expect: { status: 413, error: proxyError("request is too large (max is 10485760 bytes)") },
  },
  {
    name: "a request body just inside 10 MiB is taken",
    from: "http/mod.rs read_body_with_limit",
    request: { body: q(`select 1 -- ${"x".repeat(10 * 1024 * 1024 - 64)}`) },
    expect: select([["1"]]),
  },
  {
    name: "a lone leading surrogate: 400, no code",
    from: "error.rs ReadPayloadError::Parse (serde_json)",
    request: { body: '{"query":"select $1 as answer","params":["\\ud800"]}' },
    expect: { status: 400, error: proxyError("could not parse the HTTP request body: unexpected end of hex escape at line 1 column 49") },
  },
  {
    name: "a lone trailing surrogate: 400, no code",
    from: "error.rs ReadPayloadError::Parse (serde_json)",
    request: { body: '{"query":"select $1 as answer","params":["\\udc00"]}' },
    expect: {
      status: 400,
      error: proxyError("could not parse the HTTP request body: lone leading surrogate in hex escape at line 1 column 48"),
    },
  },
  {
    name: "a surrogate pair is one character",
    from: "serde_json",
    request: { body: '{"query":"select $1 as answer","params":["\\ud83d\\ude00"]}' },
    expect: select([["😀"]]),
  },
  {
    name: "a body that is neither a query nor a batch",
    from: "sql_over_http.rs Payload",
    request: { body: { queries: "select 1" } },
    expect: {
      status: 400,
      error: proxyError("could not parse the HTTP request body: data did not match any variant of untagged enum Payload"),
    },
  },
  {
    name: "a database that does not exist: 400 3D000",
    from: "backend.rs HttpConnError::PostgresConnectionError (INVALID_CATALOG_NAME is the user's)",
    needs: "database names",
    request: { body: q("select 1"), connection: (url) => withPath(url, "/opsroom_no_such_database") },
    expect: { status: 400, error: { message: 'database "opsroom_no_such_database" does not exist', code: "3D000", severity: "FATAL" } },
  },
  {
    name: "a wrong password: 400, no code",
    from: "test_proxy.py test_sql_over_http_pool; auth/mod.rs AuthError::PasswordFailed",
    needs: "passwords",
    request: { body: q("select 1"), connection: (url) => Object.assign(new URL(url), { password: `wrong${url.password}` }) },
    expect: { status: 400, error: { code: "" }, messageStartsWith: "password authentication failed for user" },
  },
  {
    name: "a client that gives up: its statement is cancelled...",
    from: "test_proxy.py test_sql_over_http_connection_cancel",
    needs: "cancel",
    request: { body: q(SLOW_INSERT, [2, 100]), abortAfterMs: 500 },
    expect: { status: 0 },
    thenWaitMs: 2_500,
  },
  {
    name: "...so it never landed",
    from: "test_proxy.py test_sql_over_http_connection_cancel",
    needs: "cancel",
    request: { body: q(SLOW_INSERT, [0, 100]) },
    expect: { status: 200, result: { command: "INSERT", rowCount: 1 } },
  },
  {
    name: "a client that gives up on a batch: it is rolled back...",
    from: "sql_over_http.rs BatchQueryData::process (cancelled: the connection is discarded)",
    needs: "cancel",
    request: { body: { queries: [q("insert into $table (id) values (101)"), q("select pg_sleep(2)")] }, abortAfterMs: 500 },
    expect: { status: 0 },
    thenWaitMs: 2_500,
  },
  {
    name: "...so nothing of it landed",
    from: "",
    needs: "cancel",
    request: { body: q("select count(*) from $table where id = 101") },
    expect: select([["0"]]),
  },
  // A pooled connection is reset as it is put back (conn_pool_lib.rs EndpointConnPool::put,
  // tokio-postgres2 client.rs reset_session_background, since neon#12681): a transaction left open
  // is rolled back, settings are reset, advisory locks released.
  {
    name: "a BEGIN on its own is answered...",
    from: "test_proxy.py test_http_pool_begin",
    request: { body: q("BEGIN;") },
    expect: { status: 200, result: { command: "BEGIN", rowCount: null } },
  },
  {
    name: "...a statement that fails after it...",
    from: "test_proxy.py test_http_pool_begin",
    request: { body: q("garbage-lol(&(&(&(&") },
    expect: { status: 400, error: { code: "42601", severity: "ERROR" } },
  },
  {
    name: "...and the next request is in no transaction",
    from: "test_proxy.py test_http_pool_begin",
    request: { body: q("SELECT 1;") },
    expect: select([["1"]]),
  },
  {
    name: "Postgres's interval style by default...",
    from: "test_proxy.py test_sql_over_http_pool_settings",
    request: { body: { queries: [q("select '0 seconds'::interval as interval")] } },
    expect: { status: 200, results: [{ rows: [["00:00:00"]] }] },
  },
  {
    name: "...a batch that sets it sees it...",
    from: "test_proxy.py test_sql_over_http_pool_settings",
    request: { body: { queries: [q("SET IntervalStyle = 'iso_8601'"), q("select '0 seconds'::interval as interval")] } },
    expect: { status: 200, results: [{ command: "SET" }, { rows: [["PT0S"]] }] },
  },
  {
    name: "...and the next request does not",
    from: "test_proxy.py test_sql_over_http_pool_settings",
    request: { body: { queries: [q("select '0 seconds'::interval as interval")] } },
    expect: { status: 200, results: [{ rows: [["00:00:00"]] }] },
  },
  {
    name: "a session's advisory lock...",
    from: "client.rs reset_session_background (SELECT pg_advisory_unlock_all())",
    request: { body: q("select pg_advisory_lock(4545) is not null as locked") },
    expect: select([["t"]]),
  },
  {
    name: "...is released once its request is answered",
    from: "client.rs reset_session_background (SELECT pg_advisory_unlock_all())",
    request: { body: q("select count(*) from pg_locks where locktype = 'advisory' and objid = 4545") },
    expect: select([["0"]]),
  },
  {
    name: "DROP has no row count",
    from: TEST_PROXY,
    request: { body: q("drop table $table") },
    expect: { status: 200, result: { rows: [], command: "DROP", rowCount: null } },
  },
];

function withPath(url: URL, path: string): URL {
  const changed = new URL(url);
  changed.pathname = path;
  return changed;
}
