import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { personBody, projectBody, storedEvents, unique } from "../helpers/resources.ts";

// A batch is one transaction of many statements, the only one in the API: what it must not do to
// the single writes around it, and what concurrent requests with its Idempotency-Key get.

const batch = (key: string, operations: unknown[], headers: Record<string, string> = {}) =>
  api("/v1/batch", { key, body: { operations }, headers });

describe("batches beside single writes", () => {
  it("overlapping batches and single PATCHes of the same records all commit: no deadlock, no 409, a gap-free changeVersion", async () => {
    const tenant = await createTenant();
    const [a, b] = [await tenant.insertProject(), await tenant.insertProject()];
    const renames = (n: number) => [
      { method: "PATCH", path: `/v1/projects/${a.id}`, body: { name: `A by batch ${n}` } },
      { method: "PATCH", path: `/v1/projects/${b.id}`, body: { name: `B by batch ${n}` } },
    ];
    // Batches lock a then b; the single calls touch b and a in any order, all at once.
    const calls: Promise<ApiResponse>[] = [];
    for (let n = 0; n < 6; n++) {
      calls.push(batch(tenant.key, n % 2 ? renames(n) : renames(n).reverse()));
      calls.push(api(`/v1/projects/${n % 2 ? b.id : a.id}`, { key: tenant.key, method: "PATCH", body: { name: `single ${n}` } }));
    }
    const answers = await Promise.all(calls);
    for (const answer of answers) expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    // 6 batches of 2 changes and 6 single changes, each a real change: 18 events, 1..18.
    const events = await storedEvents(tenant.org.id);
    expect(events.map((e) => e.changeVersion)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(18);
  }, 60_000);
});

describe("Idempotency-Key on a batch, under concurrency", () => {
  it("five identical batches at once: one writes, every answer is its answer byte for byte", async () => {
    const tenant = await createTenant();
    const operations = [
      { method: "POST", path: "/v1/projects", body: projectBody() },
      { method: "POST", path: "/v1/personnel", body: personBody() },
    ];
    const headers = { "Idempotency-Key": `race-${unique()}` };
    const answers = await Promise.all(Array.from({ length: 5 }, () => batch(tenant.key, operations, headers)));
    for (const answer of answers) expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    const first = answers.filter((answer) => answer.headers.get("idempotent-replayed") !== "true");
    expect(first).toHaveLength(1);
    for (const answer of answers) expect(answer.text).toBe(first[0]!.text);
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(2);
    expect(await storedEvents(tenant.org.id)).toHaveLength(2);
  }, 60_000);

  it("a key past its 24 hours runs the batch again instead of failing on the old entry", async () => {
    const tenant = await createTenant();
    const headers = { "Idempotency-Key": `expired-${unique()}` };
    const operations = [{ method: "POST", path: "/v1/projects", body: projectBody() }];
    expectSuccess(await batch(tenant.key, operations, headers));
    await query("update idempotency_keys set created_at = now() - interval '25 hours' where key_id = $1", [tenant.keyId]);
    const again = await batch(tenant.key, operations, headers);
    expectSuccess(again);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(2);
  });
});

describe("uniqueness inside a batch names its operation", () => {
  it("a second person with an email an earlier operation took: 409 on email, operation 1, nothing written", async () => {
    const tenant = await createTenant();
    const before = await snapshot(tenant.org.id);
    const email = `twice-${unique()}@example.test`;
    const refused = await batch(tenant.key, [
      { method: "POST", path: "/v1/personnel", body: personBody({ email }) },
      { method: "POST", path: "/v1/personnel", body: personBody({ email: email.toUpperCase() }) },
    ]);
    expectError(refused, 409, "conflict", { field: "email", operation: 1 });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("a PUT by external id with another person's email is the email's conflict, not an external id race", async () => {
    const tenant = await createTenant();
    const taken = expectSuccess(await api("/v1/personnel", { key: tenant.key, body: personBody() }), 201).data;
    const before = await snapshot(tenant.org.id);
    const refused = await api(`/v1/personnel/by-external-id/hr-${unique()}`, {
      key: tenant.key,
      method: "PUT",
      body: personBody({ email: taken.email }),
    });
    expectError(refused, 409, "conflict", { field: "email" });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });
});

describe("paths a batch cannot decode", () => {
  for (const path of ["/v1/tasks/by-external-id/%", "/v1/tasks/%E0%A4%A"]) {
    it(`${path}: a 400 naming the operation, as the single call's refusal, never a 500`, async () => {
      const tenant = await createTenant();
      const answer = await batch(tenant.key, [{ method: path.includes("external") ? "PUT" : "PATCH", path, body: { title: "x" } }]);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error.operation).toBe(0);
    });
  }
});
