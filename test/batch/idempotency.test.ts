import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { financialEntryBody, issueBody, riskBody } from "../helpers/project-records.ts";
import { milestoneBody, personBody, projectBody, unique } from "../helpers/resources.ts";
import { expectCommitted, expectOneBatch, feed, sendBatch, type Operation } from "./helpers.ts";

// An Idempotency-Key covers the whole batch (docs/api.md "Batches"): a repeat with the same key
// and body within 24 h answers the first answer byte for byte, with Idempotent-Replayed: true,
// and writes nothing; the key with another request is 422 idempotency_mismatch, writing nothing;
// a refused batch is not remembered.

/** A batch touching every resource, with changes, a delete and a PUT, so the replay re-renders every kind of record. */
async function everyKind(tenant: Tenant): Promise<Operation[]> {
  const task = await tenant.insertTask();
  return [
    { method: "POST", path: "/v1/projects", ref: "p", body: projectBody() },
    { method: "POST", path: "/v1/projects/$p.id/milestones", ref: "m", body: milestoneBody() },
    { method: "POST", path: "/v1/personnel", ref: "a", body: personBody() },
    {
      method: "POST",
      path: "/v1/tasks",
      ref: "t",
      body: { title: "Replayed", projectId: "$p.id", milestoneId: "$m.id", assigneeId: "$a.id", dueDate: "2026-06-30" },
    },
    { method: "PATCH", path: "/v1/tasks/$t.id", ifMatch: 1, body: { status: "in_progress" } },
    { method: "POST", path: "/v1/risks", body: await riskBody(tenant, { projectId: "$p.id", probability: "high" }) },
    { method: "POST", path: "/v1/issues", body: await issueBody(tenant, { projectId: "$p.id", severity: "critical" }) },
    { method: "POST", path: "/v1/financial-entries", body: await financialEntryBody(tenant, { projectId: "$p.id", amount: "1234.50" }) },
    { method: "PUT", path: `/v1/personnel/by-external-id/hr-${unique()}`, body: personBody() },
    { method: "PATCH", path: `/v1/projects/${task.projectId}`, body: {} },
    { method: "DELETE", path: `/v1/tasks/${task.id}` },
  ];
}

const withKey = (key: string) => ({ "idempotency-key": key });

/** The replay is the first answer again: status, body text, content type, plus Idempotent-Replayed. */
function expectReplayOf(replay: ApiResponse, first: ApiResponse) {
  expect(first.headers.get("idempotent-replayed"), "the first answer is not a replay").toBeNull();
  expect(replay.status).toBe(first.status);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.text, "the replay is byte for byte the first answer").toBe(first.text);
  expect(replay.headers.get("content-type")).toBe(first.headers.get("content-type"));
}

describe("a repeated Idempotency-Key", () => {
  it("with the same batch: the first answer byte for byte, Idempotent-Replayed, nothing written, the first changeVersion", async () => {
    const tenant = await createTenant();
    const operations = await everyKind(tenant);
    const key = `batch-${unique()}`;
    const before = await snapshot(tenant.org.id);
    const first = await sendBatch(tenant.key, operations, withKey(key));
    const answer = expectCommitted(first, operations.length);
    expectOneBatch(answer, await feed(tenant.key, before.changeVersion));
    expect(answer.changeVersion).toBe(before.changeVersion + 10);
    const afterFirst = await snapshot(tenant.org.id);

    for (let i = 0; i < 2; i++) expectReplayOf(await sendBatch(tenant.key, operations, withKey(key)), first);
    expectNoTrace(afterFirst, await snapshot(tenant.org.id));

    // Later writes, a change of a record it made: the replay is still the first answer, changeVersion included.
    expectSuccess(
      await api(`/v1/tasks/${answer.data[3]!.data.id}`, { key: tenant.key, method: "PATCH", body: { title: "Changed since" } }),
    );
    expectSuccess(
      await api(`/v1/projects/${answer.data[0]!.data.id}`, { key: tenant.key, method: "PATCH", body: { name: "Changed since" } }),
    );
    const later = await snapshot(tenant.org.id);
    expectReplayOf(await sendBatch(tenant.key, operations, withKey(key)), first);
    expectNoTrace(later, await snapshot(tenant.org.id));
  });

  it("with another batch: 422 idempotency_mismatch, nothing written, not replayed", async () => {
    const tenant = await createTenant();
    const operations = await everyKind(tenant);
    const key = `other-${unique()}`;
    expectCommitted(await sendBatch(tenant.key, operations, withKey(key)), operations.length);
    const before = await snapshot(tenant.org.id);
    const others: Operation[][] = [
      [...operations, { method: "POST", path: "/v1/projects", body: projectBody() }],
      operations.slice(0, -1),
      [...operations.slice(0, 5), operations[6]!, operations[5]!, ...operations.slice(7)],
    ];
    for (const other of others) {
      const response = await sendBatch(tenant.key, other, withKey(key));
      expectError(response, 422, "idempotency_mismatch", { field: "Idempotency-Key" });
      expect(response.headers.get("idempotent-replayed")).toBeNull();
    }
    // The same operations, sent with their fields in another order: another request too.
    const reordered = JSON.stringify({ operations: operations.map((o) => Object.fromEntries(Object.entries(o).reverse())) });
    expectError(await api("/v1/batch", { key: tenant.key, rawBody: reordered, headers: withKey(key) }), 422, "idempotency_mismatch");
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("a key used by a single create is not a batch's, nor the other way round: 422 both", async () => {
    const tenant = await createTenant();
    const single = `single-${unique()}`;
    const batch = `batch-${unique()}`;
    const body = projectBody();
    expectSuccess(await api("/v1/projects", { key: tenant.key, body, headers: withKey(single) }), 201);
    expectCommitted(await sendBatch(tenant.key, [{ method: "POST", path: "/v1/projects", body }], withKey(batch)), 1);
    const before = await snapshot(tenant.org.id);
    expectError(
      await sendBatch(tenant.key, [{ method: "POST", path: "/v1/projects", body }], withKey(single)),
      422,
      "idempotency_mismatch",
    );
    expectError(await api("/v1/projects", { key: tenant.key, body, headers: withKey(batch) }), 422, "idempotency_mismatch");
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("a refused batch is not remembered: the same key with the batch corrected commits", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    const key = `retry-${unique()}`;
    const create: Operation = { method: "POST", path: "/v1/projects", body: projectBody() };
    const before = await snapshot(tenant.org.id);
    expectError(
      await sendBatch(tenant.key, [create, { method: "PATCH", path: `/v1/tasks/${task.id}`, body: { status: "done" } }], withKey(key)),
      409,
      "invalid_transition",
      { operation: 1 },
    );
    expectError(
      await sendBatch(
        tenant.key,
        [create, { method: "PATCH", path: `/v1/tasks/${task.id}`, ifMatch: 9, body: { status: "in_progress" } }],
        withKey(key),
      ),
      412,
      "precondition_failed",
      { operation: 1 },
    );
    expectNoTrace(before, await snapshot(tenant.org.id));
    expect(await query("select 1 from idempotency_keys where key_id = $1", [tenant.keyId])).toEqual([]);
    const corrected = await sendBatch(
      tenant.key,
      [create, { method: "PATCH", path: `/v1/tasks/${task.id}`, body: { status: "in_progress" } }],
      withKey(key),
    );
    expectCommitted(corrected, 2);
    expect(corrected.headers.get("idempotent-replayed")).toBeNull();
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(before.changeVersion + 2);
  });

  it("keys belong to the API key that sent them: another key of the organisation runs its own batch", async () => {
    const tenant = await createTenant();
    const second = await tenant.keyWith(["projects.manage"]);
    const key = `shared-${unique()}`;
    const operations: Operation[] = [{ method: "POST", path: "/v1/projects", body: projectBody() }];
    const a = await sendBatch(tenant.key, operations, withKey(key));
    const b = await sendBatch(second.key, operations, withKey(key));
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(expectCommitted(b, 1).data[0]!.data.id).not.toBe(expectCommitted(a, 1).data[0]!.data.id);
    expectReplayOf(await sendBatch(second.key, operations, withKey(key)), b);
  });

  it("two identical batches with one key at once: one commits, the other answers its answer", { timeout: 60_000 }, async () => {
    const tenant = await createTenant();
    const key = `race-${unique()}`;
    const operations: Operation[] = Array.from({ length: 20 }, (_, i) => ({
      method: "POST",
      path: "/v1/projects",
      body: projectBody({ name: `Raced ${i}` }),
    }));
    const before = await snapshot(tenant.org.id);
    const [a, b] = await Promise.all([sendBatch(tenant.key, operations, withKey(key)), sendBatch(tenant.key, operations, withKey(key))]);
    const [first, replay] = a!.headers.get("idempotent-replayed") === null ? [a!, b!] : [b!, a!];
    expectCommitted(first, 20);
    expectReplayOf(replay, first);
    const after = await snapshot(tenant.org.id);
    expect(after.changeVersion).toBe(before.changeVersion + 20);
    expect(after.rows.projects).toBe(before.rows.projects! + 20);
  });
});
