import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../functions/app.ts";
import type { Bindings } from "../../functions/env.ts";

// functions/middleware/log.ts: with LOG_REQUESTS=true, one structured line per request, without the
// key or the body; without it, no line at all (the platform logs every invocation; the line cost
// CPU, bench/results/README.md "CPU per call"). The app runs in Node here: a 404 touches no database.

const app = createApp();
const ctx = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
const env = (extra: Record<string, string> = {}) =>
  ({ DATABASE_URL: "postgres://localhost/opsroom", PUBLIC_ORIGIN: "https://api.example.com", ...extra }) as unknown as Bindings;
const KEY = "ops_live_0123456789abcdefghijklmnopqrstuv";

async function logged(bindings: Bindings): Promise<string[]> {
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  const response = await app.fetch(
    new Request("http://opsroom.test/v1/nope?secret=1", { headers: { authorization: `Bearer ${KEY}` } }),
    bindings,
    ctx,
  );
  expect(response.status).toBe(404);
  return log.mock.calls.map((args) => args.map(String).join(" "));
}

afterEach(() => vi.restoreAllMocks());

describe("the request log line", () => {
  it("is written once per request with LOG_REQUESTS=true: id, method, path, status, ms, statements", async () => {
    const lines = await logged(env({ LOG_REQUESTS: "true" }));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toEqual({
      requestId: expect.any(String),
      method: "GET",
      path: "/v1/nope",
      status: 404,
      ms: expect.any(Number),
      queries: 0,
    });
    expect(lines[0]).not.toContain(KEY);
    expect(lines[0]).not.toContain("secret");
  });

  it("is not written by default", async () => {
    expect(await logged(env())).toEqual([]);
    expect(await logged(env({ LOG_REQUESTS: "false" }))).toEqual([]);
  });
});
