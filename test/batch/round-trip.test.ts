import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { acknowledgedChangeVersions } from "../helpers/realtime.ts";
import { personBody, projectBody, unique } from "../helpers/resources.ts";
import {
  close,
  isNotificationStep,
  listen,
  readBody,
  startSqlRecorder,
  type SqlRecorder,
  type SqlRequest,
} from "../helpers/sql-recorder.ts";
import { pollUntil } from "../helpers/wait.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";
import { expectCommitted, expectOneBatch, type Operation } from "./helpers.ts";

// One database round trip per batch, and one publish (docs/api.md "Batches"), counted from
// outside the Worker: a Worker of this file's own (test/helpers/worker.ts, as the harness starts
// it) on the test database, whose SQL endpoint (cli/lib/sql-endpoint.ts, Neon's protocol: one
// HTTP request per statement or per transaction) sits behind a recording proxy, and whose realtime
// URL is a stand-in room that records what it is sent and answers only when the test lets it. No
// other client uses this Worker, so every SQL request the proxy sees while a batch is in flight is
// that batch's. The room's acknowledgement costs no request of its own: it rides on the Worker's
// next write statement (db/statements/engine/acknowledgements.ts); the room's answer is held all the
// same, so nothing after the publish can start before the test has counted.

interface RoomPost {
  orgId: string;
  events: Array<{ changeVersion: number; batchId: string | null; type: string; data: { id: string } }>;
}

let recorder: SqlRecorder;
let room: Server;
let worker: TestWorker;
let sqlRequests: SqlRequest[] = [];
const roomPosts: RoomPost[] = [];
/** While set, the room holds its answers until it is called. */
let held: Array<() => void> | null = null;

beforeAll(async () => {
  recorder = await startSqlRecorder(inject("databaseUrl"));
  sqlRequests = recorder.requests;
  room = createServer((req, res) => {
    void readBody(req).then((body) => {
      const message = JSON.parse(body.toString("utf8")) as { events?: RoomPost["events"] };
      const orgId = req.url?.split("/").at(-1) ?? "";
      if (message.events) roomPosts.push({ orgId, events: message.events });
      const answer = () =>
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ acknowledged: (message.events ?? []).map((e) => e.changeVersion) }));
      if (held) held.push(answer);
      else answer();
    });
  });
  const roomPort = await listen(room);
  worker = await startTestWorker({
    DATABASE_URL: inject("databaseUrl"),
    LOCAL_SQL_ENDPOINT: `127.0.0.1:${recorder.port}`,
    REALTIME_URL: `http://127.0.0.1:${roomPort}`,
    REALTIME_SECRET: randomBytes(24).toString("hex"),
  });
}, 120_000);

afterAll(async () => {
  for (const answer of held ?? []) answer();
  held = null;
  await worker?.dispose();
  await Promise.all([recorder?.close(), room && close(room)]);
}, 60_000);

/** A tenant whose key this Worker's rate limiter already knows (its limit is read from the database on first use). */
async function warmTenant(): Promise<Tenant> {
  const tenant = await createTenant();
  expectSuccess(await api("/v1", { key: tenant.key, baseUrl: worker.url }));
  return tenant;
}

/**
 * Makes one call with the room's answers held, and answers the SQL requests the proxy saw from
 * sending it to its answer. The room is released (and its held answers sent) by `release`.
 */
async function counted(call: () => Promise<ApiResponse>): Promise<{ response: ApiResponse; requests: SqlRequest[]; release: () => void }> {
  held = [];
  const from = sqlRequests.length;
  const response = await call();
  // The write's own requests: its events' notification step runs after the answer (and may land in the window).
  const requests = sqlRequests.slice(from).filter((request) => !isNotificationStep(request));
  const release = () => {
    const waiting = held ?? [];
    held = null;
    for (const answer of waiting) answer();
  };
  return { response, requests, release };
}

/** A tenant whose writes carry the Worker's held acknowledgements to the database (its own events are not counted). */
let carrier: Tenant | undefined;

/**
 * Waits until the room's acknowledgement of the organisation's `n` events is recorded. The Worker
 * holds an acknowledgement until its next write statement (db/statements/engine/acknowledgements.ts), so
 * this makes writes of another tenant on this Worker until they have carried it; their own
 * publishes make no SQL request, so none is left to land in a later count.
 */
async function acknowledged(orgId: string, n: number): Promise<void> {
  carrier ??= await warmTenant();
  const writer = carrier;
  await pollUntil(
    async () => {
      expectSuccess(await api("/v1/personnel", { key: writer.key, body: personBody(), baseUrl: worker.url }), 201);
      return acknowledgedChangeVersions(orgId);
    },
    (recorded) => recorded.length === n,
    10_000,
  );
}

const batchAt =
  (key: string, operations: Operation[], headers: Record<string, string> = {}) =>
  () =>
    api("/v1/batch", { key, body: { operations }, headers, baseUrl: worker.url });

function hundred(): Operation[] {
  const operations: Operation[] = [
    { method: "POST", path: "/v1/personnel", ref: "a", body: personBody() },
    { method: "POST", path: "/v1/projects", ref: "p", body: projectBody() },
  ];
  for (let i = 0; i < 49; i++) {
    operations.push({
      method: "POST",
      path: "/v1/tasks",
      ref: `t${i}`,
      body: { title: `T${i}`, projectId: "$p.id", assigneeId: "$a.id", dueDate: "2026-06-30" },
    });
  }
  for (let i = 0; i < 49; i++) operations.push({ method: "PATCH", path: `/v1/tasks/$t${i}.id`, body: { status: "in_progress" } });
  return operations;
}

describe("one database round trip, one publish", () => {
  it("a single change, for comparison: one SQL request", { timeout: 60_000 }, async () => {
    const tenant = await warmTenant();
    const task = await tenant.insertTask();
    const { response, requests, release } = await counted(() =>
      api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { title: "x" }, baseUrl: worker.url }),
    );
    release();
    expectSuccess(response);
    expect(requests.map((r) => r.statements.length)).toEqual([1]);
    await acknowledged(tenant.org.id, 1);
  });

  it(
    "100 operations: one SQL request, a transaction with every operation's statement; their 100 events reach the room in one message, in order",
    { timeout: 60_000 },
    async () => {
      const tenant = await warmTenant();
      const operations = hundred();
      const { response, requests, release } = await counted(batchAt(tenant.key, operations));
      const answer = expectCommitted(response, 100);
      expect(requests, "SQL requests while the batch was in flight").toHaveLength(1);
      expect(requests[0]!.transaction).toBe(true);
      expect(requests[0]!.statements.length).toBeGreaterThanOrEqual(100);

      const posts = await pollUntil(
        async () => roomPosts.filter((p) => p.orgId === tenant.org.id),
        (p) => p.length > 0,
        10_000,
      );
      release();
      expect(posts[0]!.events.map((e) => e.data.id)).toEqual(answer.data.map((r) => r.data.id));
      expectOneBatch(answer, posts[0]!.events);
      // The acknowledgement is recorded on the events once the room answers.
      await acknowledged(tenant.org.id, 100);
      expect(
        roomPosts.filter((p) => p.orgId === tenant.org.id),
        "one publish for the whole batch",
      ).toHaveLength(1);
    },
  );

  it("with an Idempotency-Key: one request for the batch, one for its replay", { timeout: 60_000 }, async () => {
    const tenant = await warmTenant();
    const key = `rt-${unique()}`;
    const operations = hundred().slice(0, 30);
    const first = await counted(batchAt(tenant.key, operations, { "idempotency-key": key }));
    first.release();
    expectCommitted(first.response, 30);
    expect(first.requests).toHaveLength(1);
    await acknowledged(tenant.org.id, 30);
    const replay = await counted(batchAt(tenant.key, operations, { "idempotency-key": key }));
    replay.release();
    expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.response.text).toBe(first.response.text);
    expect(replay.requests).toHaveLength(1);
  });

  it("refused by the database at its last operation: the one request, and nothing more to settle it", { timeout: 60_000 }, async () => {
    const tenant = await warmTenant();
    const task = await tenant.insertTask();
    const operations = [...hundred().slice(0, 20), { method: "PATCH", path: `/v1/tasks/${task.id}`, body: { status: "done" } }];
    const { response, requests, release } = await counted(batchAt(tenant.key, operations));
    release();
    expectError(response, 409, "invalid_transition", { operation: 20 });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.transaction).toBe(true);
  });
});
