import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, expectSuccess, testClientAddress, type ApiResponse } from "../helpers/api.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { cpuNanoseconds, workerdProcesses } from "../helpers/process-cpu.ts";
import { taskBody } from "../helpers/resources.ts";
import { isNotificationStep, startSqlRecorder, type SqlRecorder } from "../helpers/sql-recorder.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";

// A tool call costs the database what its HTTP call costs: counted from outside a Worker of this
// file's own, whose SQL requests pass a recording proxy (test/helpers/sql-recorder.ts). No other
// client uses it, so every request seen while a call is in flight is that call's. No realtime is
// configured: a write's publish waits for the sweep, and makes no SQL request of its own.

let recorder: SqlRecorder;
let worker: TestWorker;

beforeAll(async () => {
  recorder = await startSqlRecorder(inject("databaseUrl"));
  worker = await startTestWorker({ DATABASE_URL: inject("databaseUrl"), LOCAL_SQL_ENDPOINT: `127.0.0.1:${recorder.port}` });
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await recorder?.close();
}, 60_000);

/** The SQL statements `work` made, one count per SQL request. */
async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: number[] }> {
  const from = recorder.requests.length;
  const result = await work();
  // The call's own requests: a write's notification step runs after the answer (and may land in the window).
  const own = recorder.requests.slice(from).filter((request) => !isNotificationStep(request));
  return { result, statements: own.map((r) => r.statements.length) };
}

async function mcpClient(tenant: Tenant): Promise<Client> {
  const client = new Client({ name: "round-trips", version: "1.0.0" });
  const url = new URL("/mcp?tools=all", worker.url);
  const headers = { authorization: `Bearer ${tenant.key}`, "cf-connecting-ip": testClientAddress() };
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

const http = (tenant: Tenant, path: string, options: { method?: "PATCH" | "POST"; body?: unknown } = {}) =>
  api(path, { key: tenant.key, ...options, baseUrl: worker.url }).then((response: ApiResponse) => expectSuccess(response, response.status));

describe("the database round trips of a tool call, beside its HTTP call", () => {
  it(
    "one statement for a read, a create and a change, as over HTTP; one for tools/list and one for connecting",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      // The key's rate limiter reads the key from the database on its first use on this Worker.
      await http(tenant, "/v1");
      const task = await tenant.insertTask();
      const connecting = await statementsOf(() => mcpClient(tenant));
      const client = connecting.result;
      const listing = await statementsOf(() => client.listTools());
      const rows: Array<[string, number[], number[]]> = [];
      const pairs: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
        ["get a task", () => http(tenant, `/v1/tasks/${task.id}`), () => client.callTool({ name: "getTask", arguments: { id: task.id } })],
        ["list tasks", () => http(tenant, "/v1/tasks"), () => client.callTool({ name: "listTasks", arguments: {} })],
        [
          "create a task",
          async () => http(tenant, "/v1/tasks", { method: "POST", body: await taskBody(tenant) }),
          async () => client.callTool({ name: "createTask", arguments: await taskBody(tenant) }),
        ],
        [
          "change a task",
          () => http(tenant, `/v1/tasks/${task.id}`, { method: "PATCH", body: { title: "By HTTP" } }),
          () => client.callTool({ name: "updateTask", arguments: { id: task.id, title: "By MCP" } }),
        ],
      ];
      for (const [what, byHttp, byMcp] of pairs) {
        const overHttp = await statementsOf(byHttp);
        const overMcp = await statementsOf(byMcp);
        expect((overMcp.result as { isError: boolean }).isError).toBe(false);
        rows.push([what, overHttp.statements, overMcp.statements]);
      }
      console.log(
        [
          `connecting (initialize, notifications/initialized): ${JSON.stringify(connecting.statements)}; tools/list: ${JSON.stringify(listing.statements)}`,
          ...rows.map(([what, overHttp, overMcp]) => `${what}: HTTP ${JSON.stringify(overHttp)}, MCP ${JSON.stringify(overMcp)}`),
        ].join("\n"),
      );
      expect(connecting.statements).toEqual([1]);
      expect(listing.statements).toEqual([1]);
      for (const [what, overHttp, overMcp] of rows) expect([what, overMcp]).toEqual([what, overHttp]);
      expect(rows.every(([, overHttp]) => overHttp.length === 1)).toBe(true);
    },
  );

  it("the Worker's CPU for a tool call, beside the same HTTP call", { timeout: 120_000 }, async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    const client = await mcpClient(tenant);
    // This file's own Worker: the workerd processes under this test process (test/helpers/process-cpu.ts).
    const pids = workerdProcesses();
    expect(pids.length).toBeGreaterThan(0);
    const byHttp = () => http(tenant, `/v1/tasks/${task.id}`);
    const byMcp = () => client.callTool({ name: "getTask", arguments: { id: task.id } });
    /** Milliseconds of the Worker's CPU per call, over `n` calls made one after another. */
    const perCall = async (call: () => Promise<unknown>, n = 40) => {
      const start = cpuNanoseconds(pids);
      for (let i = 0; i < n; i++) await call();
      return (cpuNanoseconds(pids) - start) / n / 1e6;
    };
    await perCall(byHttp, 10);
    await perCall(byMcp, 10);
    // Three rounds, alternating, the least of each: the machine is shared, and noise only adds.
    const rounds: Array<[number, number]> = [];
    for (let round = 0; round < 3; round++) rounds.push([await perCall(byHttp), await perCall(byMcp)]);
    const [overHttp, overMcp] = [Math.min(...rounds.map((r) => r[0])), Math.min(...rounds.map((r) => r[1]))];
    console.log(
      `Worker CPU per getTask call: HTTP ${overHttp.toFixed(2)} ms, MCP tools/call ${overMcp.toFixed(2)} ms (rounds: ${rounds
        .map(([h, m]) => `${h.toFixed(2)}/${m.toFixed(2)}`)
        .join(", ")})`,
    );
    expect(overHttp).toBeGreaterThan(0);
    // The tool call is the HTTP call plus the JSON-RPC around it: the same order of cost, not a multiple of it.
    expect(overMcp).toBeLessThan(overHttp * 4);
  });
});
