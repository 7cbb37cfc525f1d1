import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../domain/crypto/api-keys.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { FAILED_KEYS_PER_WINDOW } from "../../domain/limits.ts";
import { createApiKey } from "../../services/api-keys.ts";
import { expectUnavailable, stackCalls } from "../helpers/failure-calls.ts";
import { useFailureStack } from "../helpers/failure-stack.ts";
import { projectBody, unique } from "../helpers/resources.ts";

// Failures of the database (docs/api.md "Envelope and errors": 503 unavailable, nothing half-written). These break
// the database connection on purpose, so they run on a stack of their own
// (test/helpers/failure-stack.ts): another database, the SQL endpoint, a proxy between the SQL endpoint and
// Postgres that can refuse, hang or cut a request, and a Worker wired to them (Neon's own error
// answers are test/protection/neon-errors.test.ts). What they show:
//
//   - unreachable (the SQL endpoint stopped, Postgres refusing) or not answering (connect timeout): 503
//     unavailable in the envelope, nothing written; once the database is back, the service is too;
//   - the connection dropped before the statement got out: 503, nothing written;
//   - the connection cut right after the statement went out, so it may or may not have committed:
//     503, and the write is whole (row, changeVersion bump, event, remembered Idempotency-Key) or
//     absent, never part; a retry with the same Idempotency-Key then settles it exactly once;
//   - and, since the Worker's console can be read here: no API key ever appears in it.
//
// Counts and states are asserted, not durations (one generous bound proves a timeout, not a hang).

const stackOf = useFailureStack();
const keysUsed: string[] = [];
const { call, tenant, state, settled } = stackCalls(stackOf, keysUsed);

async function insertTask(orgId: string) {
  const [project, person, task] = [uuidv7(), uuidv7(), uuidv7()];
  await stackOf().db.query(
    "insert into projects (id, org_id, name, budget, start_date, end_date) values ($1, $2, 'P', 0, '2026-01-01', '2026-12-31')",
    [project, orgId],
  );
  await stackOf().db.query("insert into personnel (id, org_id, name, email) values ($1, $2, 'Ann', $3)", [
    person,
    orgId,
    `ann-${unique()}@example.test`,
  ]);
  await stackOf().db.query(
    "insert into tasks (id, org_id, project_id, assignee_id, title, due_date) values ($1, $2, $3, $4, 'Task', '2026-06-30')",
    [task, orgId, project, person],
  );
  return task;
}

describe("the database unreachable", () => {
  it("sqlEndpoint stopped: 503 unavailable for reads, writes and a key the limiter has not met; nothing written; back up, it serves again", async () => {
    const t = await tenant();
    const fresh = await createApiKey({
      ctx: { db: stackOf().db },
      input: { orgId: t.orgId, application: "fresh", scopes: ["projects.read"] },
    });
    keysUsed.push(fresh.key);
    const before = await state(t.orgId);
    await stackOf().stopSqlEndpoint();
    try {
      expectUnavailable(await call("/v1/projects", { key: t.key }));
      expectUnavailable(await call("/v1/projects", { key: t.key, body: projectBody() }));
      expectUnavailable(await call("/v1/projects", { key: t.key, body: projectBody(), headers: { "idempotency-key": "down-1" } }));
      expectUnavailable(await call("/v1", { key: fresh.key }));
    } finally {
      await stackOf().restartSqlEndpoint();
    }
    expect(await state(t.orgId)).toEqual(before);

    const created = await call("/v1/projects", { key: t.key, body: projectBody(), headers: { "idempotency-key": "down-1" } });
    expect(created.status, created.text).toBe(201);
    expect((await call("/v1", { key: fresh.key })).status).toBe(200);
    const after = await state(t.orgId);
    expect([after.projects, after.changeVersion, after.events]).toEqual([
      Number(before.projects) + 1,
      Number(before.changeVersion) + 1,
      Number(before.events) + 1,
    ]);
  }, 60_000);

  it("Postgres refusing connections: 503 unavailable, nothing written; once it accepts again, the service is back", async () => {
    const t = await tenant();
    const before = await state(t.orgId);
    stackOf().proxy.refuse();
    try {
      expectUnavailable(await call("/v1/projects", { key: t.key }));
      expectUnavailable(await call("/v1/projects", { key: t.key, body: projectBody() }));
    } finally {
      stackOf().proxy.heal();
    }
    expect(await state(t.orgId)).toEqual(before);
    const created = await call("/v1/projects", { key: t.key, body: projectBody() });
    expect(created.status, created.text).toBe(201);
  }, 60_000);

  it("a database that does not answer: 503 within the connect timeout, not a hung request; nothing written", async () => {
    const t = await tenant();
    const before = await state(t.orgId);
    stackOf().proxy.hang();
    try {
      const started = Date.now();
      const [read, write] = await Promise.all([
        call("/v1/projects", { key: t.key }),
        call("/v1/projects", { key: t.key, body: projectBody() }),
      ]);
      expectUnavailable(read);
      expectUnavailable(write);
      // The driver gives up after 5 s; a hung request would run into the test's timeout instead.
      expect(Date.now() - started).toBeLessThan(25_000);
    } finally {
      stackOf().proxy.heal();
    }
    expect(await state(t.orgId)).toEqual(before);
    expect((await call("/v1/projects", { key: t.key })).status).toBe(200);
  }, 60_000);
});

describe("an address blocked for refused keys", () => {
  it("is answered 429 without the database: the same unknown key is 503 from another address while Postgres refuses", async () => {
    const blocked = "2001:db8:dead::1";
    // A window with time left, so the 30 refusals and the checks fall in one.
    const left = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (left < 20) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 500));
    for (let i = 0; i < FAILED_KEYS_PER_WINDOW; i++) {
      const refused = await call("/v1", { key: generateApiKey(), headers: { "cf-connecting-ip": blocked } });
      expect(refused.status, refused.text).toBe(401);
    }
    stackOf().proxy.refuse();
    try {
      const unknown = generateApiKey();
      const answer = await call("/v1/projects", { key: unknown, headers: { "cf-connecting-ip": blocked } });
      expect(answer.status, answer.text).toBe(429);
      expect(answer.body).toMatchObject({ success: false, error: { code: "rate_limited" } });
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      // The proof that the 429 asked nothing of the database: the same key from elsewhere needs it.
      expectUnavailable(await call("/v1/projects", { key: unknown, headers: { "cf-connecting-ip": "2001:db8:beef::1" } }));
    } finally {
      stackOf().proxy.heal();
    }
  }, 90_000);
});

describe("the connection dropped mid-request", () => {
  it("before the statement reached Postgres: 503, nothing written; the retry with the same Idempotency-Key creates once", async () => {
    const t = await tenant();
    const before = await state(t.orgId);
    const body = projectBody();
    const headers = { "idempotency-key": `cut-before-${unique()}` };
    const cut = stackOf().proxy.cutBefore(/insert into "projects"/);
    expectUnavailable(await call("/v1/projects", { key: t.key, body, headers }));
    await cut;
    expect(await settled(t.orgId)).toEqual(before);

    const retry = await call("/v1/projects", { key: t.key, body, headers });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const after = await state(t.orgId);
    expect(after.projects).toBe(Number(before.projects) + 1);
    expect(after.changeVersion).toBe(Number(before.changeVersion) + 1);
    expect(JSON.parse(String(after.eventList)).at(-1)).toEqual({
      type: "project.created",
      changeVersion: after.changeVersion,
      id: retry.body.data.id,
    });
  }, 60_000);

  it("a create cut off after the statement went out: whole or absent, never part; the retry settles it exactly once", async () => {
    const t = await tenant();
    const before = await state(t.orgId);
    const body = projectBody();
    const headers = { "idempotency-key": `cut-after-${unique()}` };
    const cut = stackOf().proxy.cutAfter(/insert into "projects"/);
    expectUnavailable(await call("/v1/projects", { key: t.key, body, headers }));
    await cut;
    const after = await settled(t.orgId);
    const committed = after.projects !== before.projects;
    const events = JSON.parse(String(after.eventList)) as Array<{ type: string; changeVersion: number; id: string }>;
    if (committed) {
      expect(after.projects).toBe(Number(before.projects) + 1);
      expect(after.changeVersion).toBe(Number(before.changeVersion) + 1);
      expect(after.events).toBe(Number(before.events) + 1);
      expect(after.idempotencyKeys).toBe(Number(before.idempotencyKeys) + 1);
      expect(events.at(-1)).toMatchObject({ type: "project.created", changeVersion: after.changeVersion });
    } else {
      expect(after).toEqual(before);
    }

    const retry = await call("/v1/projects", { key: t.key, body, headers });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe(committed ? "true" : null);
    if (committed) expect(retry.body.data.id).toBe(events.at(-1)!.id);
    const final = await state(t.orgId);
    expect(final.projects).toBe(Number(before.projects) + 1);
    expect(final.changeVersion).toBe(Number(before.changeVersion) + 1);
    expect(final.events).toBe(Number(before.events) + 1);
  }, 60_000);

  for (const [label, method, sql, body] of [
    ["an update", "PATCH", /update "tasks"/, { title: "Changed while cut" }],
    ["a delete", "DELETE", /delete from "tasks"/, undefined],
  ] as const) {
    it(`${label} cut off after the statement went out: whole or absent, never part`, async () => {
      const t = await tenant();
      const taskId = await insertTask(t.orgId);
      const before = await state(t.orgId);
      const cut = stackOf().proxy.cutAfter(sql);
      expectUnavailable(await call(`/v1/tasks/${taskId}`, { key: t.key, method, ...(body ? { body } : {}) }));
      await cut;
      const after = await settled(t.orgId);
      const committed = after.tasksDigest !== before.tasksDigest;
      if (committed) {
        expect(after.changeVersion).toBe(Number(before.changeVersion) + 1);
        expect(after.events).toBe(Number(before.events) + 1);
        expect(after.tasks).toBe(Number(before.tasks) - (method === "DELETE" ? 1 : 0));
        const event = (JSON.parse(String(after.eventList)) as Array<{ type: string; changeVersion: number; id: string }>).at(-1);
        expect(event).toEqual({
          type: method === "DELETE" ? "task.deleted" : "task.updated",
          changeVersion: after.changeVersion,
          id: taskId,
        });
      } else {
        expect(after).toEqual(before);
      }
      // Whichever it was, the service goes on: the task answers as it now is.
      const now = await call(`/v1/tasks/${taskId}`, { key: t.key });
      expect(now.status).toBe(method === "DELETE" && committed ? 404 : 200);
      if (now.status === 200) expect(now.body.data.title).toBe(committed ? "Changed while cut" : "Task");
    }, 60_000);
  }
});

describe("the Worker's console", () => {
  it("never holds an API key, though it logged every request above (and a few with bad keys)", async () => {
    const t = await tenant();
    const unknown = generateApiKey();
    keysUsed.push(unknown);
    await call("/v1", { key: unknown });
    await call("/v1", { headers: { authorization: `Bearer ${t.key} trailing` } });
    await call("/v1", { headers: { authorization: `Basic ${Buffer.from(`${t.key}:`).toString("base64")}` } });
    const tagged = await call("/v1/projects", { key: t.key, headers: { "x-request-id": `console-check-${unique()}` } });
    await stackOf().stopSqlEndpoint();
    const failed = await call("/v1/projects", { key: t.key });
    await stackOf().restartSqlEndpoint();
    expectUnavailable(failed);

    // Let the last lines through (workerd's output is piped).
    const deadline = Date.now() + 10_000;
    while (!stackOf().output().includes(failed.body.error.requestId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const output = stackOf().output();
    expect(output, "the Worker's request log is captured").toContain(tagged.headers.get("x-request-id")!);
    expect(output, "the 503 was logged with its request id").toContain(failed.body.error.requestId);
    for (const key of keysUsed) {
      expect(output).not.toContain(key);
      expect(output).not.toContain(key.slice(4, 24));
    }
  }, 60_000);
});
