import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDatabase, DatabaseRefusedError, DatabaseSuspendedError, DatabaseUnavailableError, type Database } from "../../db/client.ts";
import { neonErrors, proxyError, type NeonAnswer } from "../conformance/neon-fixtures.ts";

// db/client.ts classifyDatabaseError: what each of Neon's answers becomes, sent to the real driver
// (@neondatabase/serverless, through the Worker's own Database) by a node:http server standing
// where Neon's proxy would. A refusal (configuration, or a request or answer the proxy never
// takes) is DatabaseRefusedError, answered 500; the database out of reach or the statement
// cancelled is DatabaseUnavailableError, 503; Postgres's own statement errors pass through for the
// services to settle. The same answers through the Worker: test/protection/neon-errors.test.ts.

let answer: NeonAnswer & { text?: string };
let server: Server;
let db: Database;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () =>
      response.writeHead(answer.status, { "content-type": "application/json" }).end(answer.text ?? JSON.stringify(answer.body)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  db = connectDatabase({ url: "postgres://opsroom:secret@ep-unit.local/opsroom", localSqlEndpoint: `127.0.0.1:${port}` });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("Neon's error answers", () => {
  for (const [name, neon] of Object.entries(neonErrors("opsroom", "opsroom"))) {
    const expected = neon.api.status === 500 ? DatabaseRefusedError : DatabaseUnavailableError;
    it(`${name} (${neon.status}${"code" in neon.body && neon.body.code ? ` ${neon.body.code}` : ""}) is ${expected.name}, for a statement and for a batch`, async () => {
      answer = neon;
      const single = await db.query("select 1").catch((error: unknown) => error);
      expect(single).toBeInstanceOf(expected);
      // The driver's own error is kept as the cause: it is what gets logged.
      expect((single as Error).cause).toMatchObject({ name: "NeonDbError" });
      const batch = await db.transaction([{ text: "select 1", params: [] }]).catch((error: unknown) => error);
      expect(batch).toBeInstanceOf(expected);
      // The quota used up, the endpoint disabled: unavailable until someone acts, and which (issue 45 row 5).
      const reason = neon.api.status === 503 && "reason" in neon.api ? neon.api.reason : undefined;
      for (const error of [single, batch]) {
        if (reason) expect(error).toMatchObject({ name: "DatabaseSuspendedError", reason });
        else expect(error).not.toBeInstanceOf(DatabaseSuspendedError);
      }
    });
  }
});

describe("Postgres's own errors and other answers", () => {
  it("a statement's error passes through with its code, for the services to settle", async () => {
    answer = {
      status: 400,
      body: {
        ...proxyError('duplicate key value violates unique constraint "personnel_email"'),
        code: "23505",
        severity: "ERROR",
        constraint: "personnel_email",
      },
    };
    const error = await db.query("insert into personnel ...").catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(DatabaseRefusedError);
    expect(error).not.toBeInstanceOf(DatabaseUnavailableError);
    expect(error).toMatchObject({ code: "23505", constraint: "personnel_email" });
  });

  it("a refusal Postgres sends while serving (57P01, admin shutdown) is unavailable, not the statement's error", async () => {
    answer = {
      status: 400,
      body: { ...proxyError("terminating connection due to administrator command"), code: "57P01", severity: "FATAL" },
    };
    expect(await db.query("select 1").catch((e: unknown) => e)).toBeInstanceOf(DatabaseUnavailableError);
  });

  it("a statement the database's statement_timeout cancelled (57014) is unavailable, for a statement and for a batch", async () => {
    answer = { status: 400, body: { ...proxyError("canceling statement due to statement timeout"), code: "57014", severity: "ERROR" } };
    expect(await db.query("select 1").catch((e: unknown) => e)).toBeInstanceOf(DatabaseUnavailableError);
    expect(await db.transaction([{ text: "select 1", params: [] }]).catch((e: unknown) => e)).toBeInstanceOf(DatabaseUnavailableError);
  });

  it("a gateway's page (502, not JSON) is unavailable", async () => {
    answer = { status: 502, body: {}, text: "<html>Bad Gateway</html>" };
    expect(await db.query("select 1").catch((e: unknown) => e)).toBeInstanceOf(DatabaseUnavailableError);
  });

  it("a 500 carrying an unavailable Postgres code (53300, too many connections) is unavailable; one carrying 28P01 is refused", async () => {
    answer = { status: 500, body: { ...proxyError("sorry, too many clients already"), code: "53300", severity: "FATAL" } };
    expect(await db.query("select 1").catch((e: unknown) => e)).toBeInstanceOf(DatabaseUnavailableError);
    answer = {
      status: 500,
      body: { ...proxyError('password authentication failed for user "opsroom"'), code: "28P01", severity: "FATAL" },
    };
    expect(await db.query("select 1").catch((e: unknown) => e)).toBeInstanceOf(DatabaseRefusedError);
  });
});
