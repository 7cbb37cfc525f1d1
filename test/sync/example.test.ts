import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { api, expectSuccess, workerUrl } from "../helpers/api.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { created, patched, taskBody } from "../helpers/resources.ts";

// docs/sync-example.ts, the sync recipe of docs/sync.md, run as its reader runs it: a child process
// against the stack. Its mirror must equal the API's list after writes made before it started,
// while it follows, and, with --exclude-own, without the echo of its own key's writes.

useRoom();

const EXAMPLE = fileURLToPath(new URL("../../docs/sync-example.ts", import.meta.url));
const WAIT_MS = 20_000;

type Mirror = { changeVersion: number; tasks: Record<string, number> };

function runExample(key: string, extra: string[] = []) {
  const child = spawn(process.execPath, ["--import", "tsx", EXAMPLE, "--api", workerUrl(), "--key", key, ...extra], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Mirror[] = [];
  const errors: string[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => lines.push(JSON.parse(line) as Mirror));
  createInterface({ input: child.stderr }).on("line", (line) => errors.push(line));
  return {
    lines,
    /** Waits until the last printed mirror satisfies `done`. */
    async until(done: (mirror: Mirror) => boolean): Promise<Mirror> {
      await expect
        .poll(() => lines.at(-1) && done(lines.at(-1)!), {
          timeout: WAIT_MS,
          message: `mirror: ${JSON.stringify(lines.at(-1))}\n${errors.join("\n")}`,
        })
        .toBe(true);
      return lines.at(-1)!;
    },
    stop: () => child.kill("SIGINT"),
  };
}

/** The API's own state: every task's version, and the organisation's changeVersion. */
async function state(tenant: Tenant): Promise<Mirror> {
  const page = expectSuccess(await api("/v1/tasks?limit=200", { key: tenant.key }));
  return {
    changeVersion: page.changeVersion,
    tasks: Object.fromEntries((page.data as Array<{ id: string; version: number }>).map((t) => [t.id, t.version]).sort()),
  };
}

describe("docs/sync-example.ts", { timeout: 60_000 }, () => {
  it("mirrors the tasks exactly: a snapshot, then every change as it happens", async () => {
    const tenant = await createTenant();
    const first = await created(tenant.key, "/v1/tasks", await taskBody(tenant));
    const second = await created(tenant.key, "/v1/tasks", await taskBody(tenant));
    const example = runExample(tenant.key);
    try {
      await example.until((m) => m.changeVersion === 2);
      expect(example.lines.at(-1)).toEqual(await state(tenant));

      await created(tenant.key, "/v1/tasks", await taskBody(tenant));
      await patched(tenant.key, `/v1/tasks/${first.id}`, { status: "in_progress" });
      await api(`/v1/tasks/${second.id}`, { key: tenant.key, method: "DELETE" });
      const expected = await state(tenant);
      expect(expected.changeVersion).toBe(5);
      expect(await example.until((m) => m.changeVersion === 5)).toEqual(expected);
    } finally {
      example.stop();
    }
  });

  it("with --exclude-own, its own key's writes never come back as events; everyone else's do", async () => {
    const tenant = await createTenant();
    const other = await tenant.keyWith(["tasks.manage"]);
    const example = runExample(tenant.key, ["--exclude-own"]);
    try {
      await example.until((m) => m.changeVersion === 0);
      const own = await created(tenant.key, "/v1/tasks", await taskBody(tenant)); // 1: the example's own key
      const theirs = await created(other.key, "/v1/tasks", await taskBody(tenant)); // 2
      const mirror = await example.until((m) => m.changeVersion === 2);
      expect(mirror.tasks).toEqual({ [theirs.id]: 1 });
      expect(mirror.tasks).not.toHaveProperty(own.id);
    } finally {
      example.stop();
    }
  });
});
