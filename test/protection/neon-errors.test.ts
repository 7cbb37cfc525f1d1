import { describe, expect, it } from "vitest";
import type { NeonFault } from "../../cli/lib/sql-endpoint.ts";
import { neonErrors, type ApiAnswer } from "../conformance/neon-fixtures.ts";
import { expectErrorAnswer, expectUnavailable, stackCalls, type StackResponse } from "../helpers/failure-calls.ts";
import { useFailureStack } from "../helpers/failure-stack.ts";
import { projectBody, unique } from "../helpers/resources.ts";

// What the API answers to each of Neon's own error answers (docs/api.md "What the database's
// failures answer"), through the real Worker, on a stack of this file's own
// (test/helpers/failure-stack.ts): its SQL endpoint's fault mode answers Neon's body for the
// write's statement instead of running it, as Neon's proxy would. And a client that goes away
// (the Worker's 15 s timeout) while its statement is held: Neon cancels it and rolls a batch back,
// so it never lands. Each shows the API's status and code, and that nothing was written.

const stackOf = useFailureStack();
const { call, tenant, state } = stackCalls(stackOf);
const PROJECT_INSERT = /insert into "projects"/;
const batchOf = (...bodies: Record<string, unknown>[]) => ({
  operations: bodies.map((body) => ({ method: "POST", path: "/v1/projects", body })),
});

/** The Worker's error log line for this answer's request. */
async function loggedError(response: StackResponse): Promise<{ message: string; cause: string }> {
  const requestId = response.body.error.requestId as string;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = stackOf()
      .output()
      .split("\n")
      .find((l) => l.includes(requestId) && l.includes('"level":"error"'));
    if (line) return JSON.parse(line.slice(line.indexOf("{"), line.lastIndexOf("}") + 1));
    if (Date.now() > deadline) throw new Error(`no error logged for request ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("Neon's error answers, through the Worker", () => {
  const faults = neonErrors("opsroom", "opsroom");
  for (const fault of [
    "request-too-large",
    "response-too-large",
    "unparsable-body",
    "cancelled",
    "password-failed",
    "password-refused",
    "role-refused",
    "database-missing",
    "quota-exceeded",
    "endpoint-disabled",
  ] as const satisfies NeonFault[]) {
    const { api, body: neon } = faults[fault] as (typeof faults)[typeof fault] & { api: ApiAnswer };
    it(`${fault}: a create and a batch answer ${api.status} ${api.code}, nothing written${api.status === 500 ? ", the cause logged and not answered" : ""}`, async () => {
      const t = await tenant();
      const before = await state(t.orgId);
      for (const [path, body] of [
        ["/v1/projects", projectBody()],
        ["/v1/batch", batchOf(projectBody(), projectBody())],
      ] as const) {
        const answered = stackOf().failNext(fault, PROJECT_INSERT);
        const response = await call(path, { key: t.key, body, headers: { "idempotency-key": `neon-${fault}-${unique()}` } });
        await answered;
        expectErrorAnswer(response, api.status, api.code);
        // Refused until someone acts (issue 45 row 5): which, and a Retry-After longer than a blip's 1 s.
        expect(response.body.error.reason).toBe(api.status === 503 ? api.reason : undefined);
        if (api.status === 503 && api.reason) expect(Number(response.headers.get("retry-after"))).toBe(response.body.error.retryAfter);
        if (api.status === 503 && api.reason) expect(response.body.error.retryAfter).toBeGreaterThanOrEqual(60);
        expect(await state(t.orgId)).toEqual(before);
        if (api.status === 500) {
          const logged = await loggedError(response);
          expect(logged.message).toBe("database refused the request");
          expect(logged.cause).toMatch(/^NeonDbError: /);
          expect(response.text).not.toContain(String(neon.message).slice(0, 16));
        }
      }
      // The fault answered once; the service goes on.
      const created = await call("/v1/projects", { key: t.key, body: projectBody() });
      expect(created.status, created.text).toBe(201);
    }, 60_000);
  }
});

describe("a client that goes away while its statement runs", () => {
  // The statement is held between the SQL endpoint and Postgres (a statement that runs long) until
  // the Worker gives up on it (15 s) and answers 503, and let go once the SQL endpoint has dealt
  // with its client going away. A write of the same
  // organisation is then the sentinel: it takes the organisation's row after anything let go, and
  // its changeVersion says whether anything committed before it.
  for (const [label, path, body] of [
    ["a create", "/v1/projects", () => projectBody()],
    ["a batch", "/v1/batch", () => batchOf(projectBody(), projectBody())],
  ] as const) {
    it(`${label}: 503, and it never lands, even once the statement could go on (Neon cancels it and rolls back)`, async () => {
      const t = await tenant();
      const before = await state(t.orgId);
      const stalled = stackOf().proxy.stall(PROJECT_INSERT);
      try {
        expectUnavailable(await call(path, { key: t.key, body: body() }));
        // The SQL endpoint cancels the statement and, as it has not stopped within 100 ms, drops
        // its connection: a stand-in that kept it would run the statement once let go.
        const { closed } = await stalled;
        const kept = new Promise<string>((resolve) => setTimeout(() => resolve("still open after 5 s"), 5_000));
        expect(await Promise.race([closed.then(() => "closed"), kept])).toBe("closed");
      } finally {
        stackOf().proxy.heal();
      }
      const sentinel = await call("/v1/projects", { key: t.key, body: projectBody() });
      expect(sentinel.status, sentinel.text).toBe(201);
      const after = await state(t.orgId);
      expect(after.changeVersion).toBe(Number(before.changeVersion) + 1);
      expect(after.projects).toBe(Number(before.projects) + 1);
      expect(after.events).toBe(Number(before.events) + 1);
    }, 60_000);
  }
});
