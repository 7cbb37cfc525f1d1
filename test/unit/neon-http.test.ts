import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { neon, neonConfig } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { neonQuery, neonTargetOf, neonTransaction, type NeonRequest } from "../../db/neon-http.ts";

// db/neon-http.ts against the driver it stands for, @neondatabase/serverless's `neon()`: both send
// to a node:http server standing where Neon's endpoint would, which keeps what each sent and
// answers the same, so the two must send the same request and answer the same rows and errors.

const URL = "postgres://opsroom:se%20cret@ep-unit-123.eu-central-1.aws.neon.tech/opsroom?sslmode=require";
const APPLICATION_NAME = "opsroom-test";

interface Sent {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let answer: { status: number; text: string };
let sent: Sent[] = [];
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      sent.push({ url: request.url!, headers: request.headers, body });
      response.writeHead(answer.status, { "content-type": "application/json" }).end(answer.text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sql`;
  neonConfig.fetchEndpoint = () => endpoint;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The driver's request, with its application_name for ours (the one difference, by design). */
const driver = neon(`${URL}&application_name=${APPLICATION_NAME}`, { fullResults: true });
const ours = (): NeonRequest => ({ endpoint, target: neonTargetOf(URL, APPLICATION_NAME), signal: AbortSignal.timeout(5000) });

/** What each sent and answered (or threw) for the same answer. */
async function both(theirs: () => Promise<unknown>, mine: () => Promise<unknown>) {
  const settle = (p: Promise<unknown>) =>
    p.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  sent = [];
  const a = await settle(theirs());
  const b = await settle(mine());
  const [sentA, sentB] = sent.map(({ url, headers, body }) => ({
    url,
    body,
    headers: Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith("neon-") || name === "content-type")),
  }));
  return { a, b, sentA, sentB };
}

// Every kind of value a statement may carry: null, text, numbers, booleans, an array with quotes,
// backslashes and nulls, nested arrays, bytes, an object, a Date.
const PARAMS = [
  null,
  undefined,
  "text with \"quotes\" and \\ and 'apostrophes'",
  42,
  1.5,
  12345678901234567890n,
  true,
  ["tasks.read", 'a "quoted" one', "back\\slash", null, 7],
  [
    [1, 2],
    [3, null],
  ],
  new Uint8Array([0, 1, 254, 255]),
  { title: "x", nested: { list: [1, "two"] } },
  new Date(Date.UTC(2026, 10, 27, 15, 47, 20, 123)),
];

// An answer of every type the statements return (Neon-Raw-Text-Output: each value as text).
const FIELDS: [string, number, string | null][] = [
  ["int4", 23, "42"],
  ["int8", 20, "9007199254740993"],
  ["int2", 21, "-7"],
  ["float8", 701, "1.25"],
  ["numeric", 1700, "12.50"],
  ["bool", 16, "t"],
  ["text", 25, "hello"],
  ["uuid", 2950, "0192f4a0-0000-7000-8000-000000000000"],
  ["json", 114, '{"a":[1,2,{"b":null}]}'],
  ["jsonb", 3802, '{"x": "y"}'],
  ["timestamptz", 1184, "2026-11-27 15:47:20.123+00"],
  ["date", 1082, "2026-11-27"],
  ["text[]", 1009, '{tasks.read,"a \\"quoted\\" one",NULL}'],
  ["int4[]", 1007, "{1,2,NULL}"],
  ["uuid[]", 2951, "{0192f4a0-0000-7000-8000-000000000000}"],
  ["jsonb[]", 3807, '{"{\\"a\\": 1}"}'],
  ["null", 25, null],
  ["bytea", 17, "\\x0001feff"],
];
const RESULT = {
  command: "SELECT",
  rowCount: 2,
  fields: FIELDS.map(([name, dataTypeID]) => ({ name, dataTypeID })),
  rows: [FIELDS.map(([, , value]) => value), FIELDS.map(() => null)],
};

describe("db/neon-http.ts sends what the driver sends and answers what it answers", () => {
  it("a statement: the same request, the same rows", async () => {
    answer = { status: 200, text: JSON.stringify(RESULT) };
    const text = "select $1, $2";
    const { a, b, sentA, sentB } = await both(
      async () => (await driver.query(text, PARAMS)).rows,
      () => neonQuery(ours(), { query: text, params: PARAMS }),
    );
    expect(sentB).toEqual(sentA);
    expect(b).toEqual(a);
    expect("value" in b && (b.value as Record<string, unknown>[])[0]).toMatchObject({
      int4: 42,
      bool: true,
      "text[]": ["tasks.read", 'a "quoted" one', null],
    });
  });

  it("a transaction: the same request, each statement's rows", async () => {
    answer = { status: 200, text: JSON.stringify({ results: [RESULT, { ...RESULT, rows: [] }] }) };
    const statements = [
      { query: "select $1", params: [["a", "b"]] },
      { query: "select 2", params: [] },
    ];
    const { a, b, sentA, sentB } = await both(
      async () => (await driver.transaction(statements.map((s) => driver.query(s.query, s.params)))).map((r) => r.rows),
      () => neonTransaction(ours(), statements),
    );
    expect(sentB).toEqual(sentA);
    expect(b).toEqual(a);
  });

  const failures: Record<string, { status: number; text: string }> = {
    "a statement's error (400 with Postgres's fields)": {
      status: 400,
      text: JSON.stringify({
        message: "duplicate key",
        code: "23505",
        severity: "ERROR",
        constraint: "personnel_email",
        detail: "Key exists",
      }),
    },
    "a refusal without a code (400)": { status: 400, text: JSON.stringify({ message: "could not parse the HTTP request body" }) },
    "a server error (500)": { status: 500, text: JSON.stringify({ message: "boom", code: "XX000" }) },
    "a gateway's page (502, not JSON)": { status: 502, text: "<html>Bad Gateway</html>" },
    "a 200 that is not JSON": { status: 200, text: "<html>" },
    "a transaction's answer without results": { status: 200, text: JSON.stringify({ rows: [] }) },
  };
  for (const [name, failure] of Object.entries(failures)) {
    it(`${name}: the same error, for a statement and a transaction`, async () => {
      answer = failure;
      const single = await both(
        () => driver.query("select 1", []),
        () => neonQuery(ours(), { query: "select 1", params: [] }),
      );
      const batch = await both(
        () => driver.transaction([driver.query("select 1", [])]),
        () => neonTransaction(ours(), [{ query: "select 1", params: [] }]),
      );
      for (const { a, b } of [single, batch]) {
        if (!("error" in a) || !("error" in b)) {
          expect(failure.status, "only a 200 with rows succeeds").toBe(200);
          continue;
        }
        expect(b.error).toBeInstanceOf((a.error as Error).constructor);
        expect({ ...(b.error as object), message: (b.error as Error).message }).toEqual({
          ...(a.error as object),
          message: (a.error as Error).message,
        });
      }
    });
  }

  it("an endpoint that does not answer: the same NeonDbError, its cause kept", async () => {
    const closed = "http://127.0.0.1:1/sql";
    neonConfig.fetchEndpoint = () => closed;
    try {
      const theirs = await driver.query("select 1", []).catch((error: unknown) => error);
      const mine = await neonQuery({ ...ours(), endpoint: closed }, { query: "select 1", params: [] }).catch((error: unknown) => error);
      expect(mine).toMatchObject({ name: "NeonDbError", message: (theirs as Error).message });
      expect((mine as { sourceError?: unknown }).sourceError).toBeInstanceOf(Error);
    } finally {
      neonConfig.fetchEndpoint = () => endpoint;
    }
  });

  it("a connection string: the same as the driver's, and the same refusal of a malformed one", () => {
    expect(neonTargetOf(URL, APPLICATION_NAME)).toEqual({
      connectionString: `postgresql://opsroom:se%20cret@ep-unit-123.eu-central-1.aws.neon.tech/opsroom?sslmode=require&application_name=${APPLICATION_NAME}`,
      hostname: "ep-unit-123.eu-central-1.aws.neon.tech",
    });
    expect(neonTargetOf(`${URL}&application_name=mine`, APPLICATION_NAME).connectionString).toMatch(/application_name=mine$/);
    expect(() => neonTargetOf("mysql://a:b@host/db", APPLICATION_NAME)).toThrow(/Wrong URL scheme/);
    expect(() => neonTargetOf("postgres://host", APPLICATION_NAME)).toThrow(/missing user, host or database/);
    expect(() => neonTargetOf("not a url", APPLICATION_NAME)).toThrow(/not a valid URL/);
  });
});
