import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../domain/errors.ts";
import { ANSWER_BYTES } from "../../domain/limits.ts";
import {
  answerBudget,
  answerBytesInFlight,
  answersLarge,
  LARGE_ANSWERS_AT_ONCE,
  waitingForShare,
  WAITING_AT_MOST,
} from "../../functions/middleware/answer-budget.ts";
import { ROUTE_MANIFEST } from "../../functions/routes/manifest.ts";

// Issue 45 row 3: one isolate answers at most LARGE_ANSWERS_AT_ONCE large reads at once
// (functions/middleware/answer-budget.ts); the next ones wait their turn, holding nothing, and
// one past WAITING_AT_MOST waiting (or WAIT_MS) is 503 with Retry-After. What
// an isolate holds at that bound is measured by `npm run bench:memory` (bench/results/README.md
// "Memory"). Here: the bound itself, its release (a streamed answer holds it to its end), and
// that every operation whose answer can reach ANSWER_BYTES is under it.

/** A Hono app with the budget in front of two routes whose answers wait for `open`. */
function appWithGate() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const app = new Hono();
  app.onError((error, c) =>
    error instanceof DomainError && error.code === "unavailable"
      ? c.json({ code: error.code }, 503, { "retry-after": "1" })
      : c.json({ error: String(error) }, 500),
  );
  app.get("/page", answerBudget as never, async (c) => {
    await gate;
    return c.json({ data: [] });
  });
  app.get("/export", answerBudget as never, () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('{"n":1}\n'));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
  });
  return { app, open: () => open() };
}

describe("the isolate's budget of large answers (issue 45 row 3)", () => {
  it(`answers ${LARGE_ANSWERS_AT_ONCE} at once, the rest in turn; past ${WAITING_AT_MOST} waiting, 503 with Retry-After at once; all given back`, async () => {
    const { app, open } = appWithGate();
    const calls = Array.from({ length: LARGE_ANSWERS_AT_ONCE + WAITING_AT_MOST }, () => app.request("/page"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Before: every one of them was building its answer at once.
    expect(answerBytesInFlight()).toBe(LARGE_ANSWERS_AT_ONCE * ANSWER_BYTES);
    expect(waitingForShare()).toBe(WAITING_AT_MOST);
    const refused = await app.request("/page");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    open();
    const statuses = (await Promise.all(calls)).map((r) => r.status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(answerBytesInFlight()).toBe(0);
    expect(waitingForShare()).toBe(0);
    expect((await app.request("/page")).status).toBe(200);
  });

  it("a streamed answer holds its share until its last byte is read, or until it is given up", async () => {
    const { app } = appWithGate();
    const read = await app.request("/export");
    expect(answerBytesInFlight()).toBe(ANSWER_BYTES);
    expect(await read.text()).toBe('{"n":1}\n');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answerBytesInFlight()).toBe(0);
    const dropped = await app.request("/export");
    expect(answerBytesInFlight()).toBe(ANSWER_BYTES);
    await dropped.body!.cancel();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answerBytesInFlight()).toBe(0);
  });

  it("every list, the audit export and the batch hold a share; reads of one record and writes do not", () => {
    const large = ROUTE_MANIFEST.filter((route) => answersLarge(route.operationId)).map((route) => route.operationId);
    expect(large).toEqual(
      expect.arrayContaining(["listTasks", "listEvents", "listAuditLog", "exportAuditLog", "runBatch", "listWebhookDeliveries"]),
    );
    for (const route of ROUTE_MANIFEST.filter((r) => r.method === "get" && !answersLarge(r.operationId)))
      expect(route.operationId, route.path).toMatch(/^(get|count|describe|search|read|show|download)|Counts$/);
    expect(answersLarge("getTask")).toBe(false);
    expect(answersLarge("updateTask")).toBe(false);
  });
});
