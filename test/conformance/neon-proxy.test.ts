import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { NEON_FAULTS } from "../../cli/lib/sql-endpoint/neon-answers.ts";
import { startSqlEndpoint, type NeonFault, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { startDatabase } from "../helpers/failure-stack.ts";
import { CASES, type Capability, type Expected, type Request, type Result } from "./neon-cases.ts";
import { neonErrors, proxyError } from "./neon-fixtures.ts";

// Conformance of the local SQL endpoint (cli/lib/sql-endpoint.ts) to Neon's SQL-over-HTTP proxy:
// one list of requests (neon-cases.ts, from Neon's own tests and source), each sent as the driver
// sends it and its answer compared with what Neon answers: status, the body's shape, rows,
// headers, error fields. The endpoint runs here on a database of this file's own, so the large
// answers and slow statements never hold up other files. With NEON_TEST_URL (a connection string
// of a Neon branch the test may create and drop a table on), the same list runs against Neon too.

interface Target {
  /** Where the driver would POST. */
  sqlUrl: string;
  connection: URL;
}

/** Why a target cannot show what a case needs, for each capability it lacks. */
type Lacks = Partial<Record<Capability, string>>;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

const NEON_TEST_URL = process.env.NEON_TEST_URL;
/** Every field of Neon's error body (sql_over_http.rs `handle`). */
const ERROR_FIELDS = Object.keys(proxyError("")).sort();
const RESULT_FIELDS = ["command", "fields", "rowAsArray", "rowCount", "rows"];

async function send(target: Target, request: Request, table: string): Promise<Answer> {
  const connection = request.connection ? request.connection(target.connection) : target.connection;
  const text = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
  try {
    const response = await fetch(target.sqlUrl, {
      method: "POST",
      headers: { "Neon-Connection-String": connection.href, "Neon-Raw-Text-Output": "true", "Neon-Array-Mode": "true", ...request.headers },
      body: text.replaceAll("$table", table),
      signal: request.abortAfterMs ? AbortSignal.timeout(request.abortAfterMs) : null,
    });
    const answer = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(answer);
    } catch {
      // not JSON: the status check shows the text
    }
    return { status: response.status, headers: response.headers, body, text: answer.slice(0, 500) };
  } catch (error) {
    if (request.abortAfterMs && (error as Error).name === "TimeoutError")
      return { status: 0, headers: new Headers(), body: null, text: "(the client gave up)" };
    throw error;
  }
}

function expectResult(result: Record<string, unknown>, expected: Result) {
  expect(Object.keys(result).sort()).toEqual(RESULT_FIELDS);
  expect(result).toMatchObject(expected);
}

function expectAnswer(answer: Answer, expected: Expected) {
  expect(answer.status, answer.text).toBe(expected.status);
  if (expected.result) expectResult(answer.body, expected.result);
  if (expected.results) {
    expect(answer.body.results).toHaveLength(expected.results.length);
    expected.results.forEach((result, i) => expectResult(answer.body.results[i], result));
  }
  for (const [name, value] of Object.entries(expected.headers ?? {})) expect(answer.headers.get(name), name).toBe(value);
  if (expected.error) {
    expect(Object.keys(answer.body).sort()).toEqual(ERROR_FIELDS);
    expect(answer.body).toMatchObject(expected.error);
  }
  if (expected.messageStartsWith) expect(answer.body.message).toMatch(new RegExp(`^${expected.messageStartsWith}`));
}

/** The list, in order, against one target; cases the target cannot show are skipped, saying why. */
function conformance(targetOf: () => Target, lacks: Lacks) {
  const table = `conformance_${randomBytes(4).toString("hex")}`;
  CASES.forEach((c, index) => {
    const lack = c.needs && lacks[c.needs];
    const title = `${index + 1}. ${c.name}${c.from ? ` (${c.from})` : ""}${lack ? ` [skipped: ${lack}]` : ""}`;
    it.skipIf(Boolean(lack))(title, async () => {
      expectAnswer(await send(targetOf(), c.request, table), c.expect);
      if (c.thenWaitMs) await new Promise((resolve) => setTimeout(resolve, c.thenWaitMs));
    });
  });
  return table;
}

describe("the local SQL endpoint", () => {
  const embedded = inject("databaseKind") === "embedded";
  const lacks: Lacks = {
    passwords: "locally no password is checked (its fault mode answers Neon's body instead: below)",
    ...(embedded && {
      cancel:
        "the embedded database runs in this process, one statement at a time: a running statement cannot be cancelled (test/protection/neon-errors.test.ts shows a client going away on both databases)",
      "database names": "the embedded database serves any database name",
    }),
  };
  let database: Awaited<ReturnType<typeof startDatabase>>;
  let endpoint: SqlEndpoint;
  let target: Target;
  beforeAll(async () => {
    database = await startDatabase();
    endpoint = await startSqlEndpoint({ target: database.target });
    target = { sqlUrl: `http://${endpoint.address}/sql`, connection: new URL(database.url) };
  }, 60_000);
  afterAll(async () => {
    await endpoint?.close();
    await database?.stop();
  }, 60_000);

  conformance(() => target, lacks);

  describe("its fault mode answers Neon's own bodies", () => {
    for (const fault of Object.keys(NEON_FAULTS) as NeonFault[]) {
      it(fault, async () => {
        const answered = endpoint.failNext(fault, /select 'fault'/);
        const answer = await send(target, { body: { query: "select 'fault'", params: [] } }, "");
        await answered;
        const neon = neonErrors(decodeURIComponent(target.connection.username), decodeURIComponent(target.connection.pathname.slice(1)))[
          fault
        ];
        expect(answer.status).toBe(neon.status);
        expect(answer.body).toEqual(neon.body);
      });
    }
  });
});

describe.skipIf(!NEON_TEST_URL)(
  `Neon${NEON_TEST_URL ? "" : " (skipped: NEON_TEST_URL is not set; set it to a Neon branch's connection string to run the same list there)"}`,
  () => {
    const connection = new URL(NEON_TEST_URL ?? "postgres://-");
    // The driver's default endpoint (@neondatabase/serverless fetchEndpoint): the host's first label becomes "api".
    const target: Target = { sqlUrl: `https://${connection.hostname.replace(/^[^.]+\./, "api.")}/sql`, connection };
    const table = conformance(() => target, {});
    afterAll(async () => {
      // A case that failed half-way may have left the table.
      await send(target, { body: { query: "drop table if exists $table", params: [] } }, table);
    });
  },
);
