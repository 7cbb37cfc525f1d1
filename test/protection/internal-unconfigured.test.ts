import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startSqlEndpoint, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";

// A deployment without realtime (no REALTIME_URL and no REALTIME_SECRET: events wait for the
// sweep) has no room to serve: every /internal path is the same plain 404 as a wrong secret is
// on a configured one (test/protection/internal-endpoints.test.ts), whatever Authorization is
// sent, never an error that would show something is there. A Worker of this file's own, on
// the harness's database.

let sqlEndpoint: SqlEndpoint;
let worker: TestWorker;

beforeAll(async () => {
  const database = new URL(inject("databaseUrl"));
  sqlEndpoint = await startSqlEndpoint({ target: { host: database.hostname, port: Number(database.port || 5432) } });
  worker = await startTestWorker({
    DATABASE_URL: inject("databaseUrl"),
    LOCAL_SQL_ENDPOINT: sqlEndpoint.address,
    WEBHOOKS_ALLOW_LOOPBACK: "true",
  });
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await sqlEndpoint?.close();
}, 60_000);

describe("a Worker without realtime", () => {
  const orgId = "0190a5b2-0000-7000-8000-000000000001";
  const paths: Array<["GET" | "POST", string]> = [
    ["GET", `/internal/rooms/${orgId}/start`],
    ["GET", `/internal/rooms/${orgId}/webhooks`],
    ["POST", `/internal/rooms/${orgId}/sockets`],
    ["GET", "/internal/rooms/not-a-uuid/start"],
  ];
  for (const [method, path] of paths) {
    it(`${method} ${path}: 404 not_found, with any Authorization or none`, async () => {
      for (const authorization of [undefined, "Bearer ", "Bearer undefined", "Bearer null", `Bearer ${inject("realtimeSecret")}`]) {
        const response = await fetch(new URL(path, worker.url), {
          method,
          headers: {
            "content-type": "application/json",
            "cf-connecting-ip": "2001:db8:ff::1",
            ...(authorization === undefined ? {} : { authorization }),
          },
          ...(method === "POST" ? { body: JSON.stringify({ apiKey: "ops_x", clientAddress: "2001:db8::1" }) } : {}),
        });
        const body = (await response.json()) as { success: boolean; error: { code: string } };
        expect(response.status, `${authorization}: ${JSON.stringify(body)}`).toBe(404);
        expect(body).toMatchObject({ success: false, error: { code: "not_found" } });
      }
    });
  }
});
