// `npm run bench:memory`: what one Worker isolate holds when it answers large reads at once (issue
// 45 row 3). Cloudflare gives an isolate 128 MB, shared by the requests it serves concurrently;
// open-source workerd has no limit, so this runs the app in Node under --max-old-space-size=128
// (bench/memory-isolate.ts, one child process per run) against a real database through the local
// SQL endpoint, as in the Worker. The organisation has 400 tasks of 10,000 characters of
// three-byte UTF-8 each, so every GET /v1/tasks?limit=200 is a page cut at ANSWER_BYTES (4 MiB).
// Each run sends `concurrency` of them at once and reads every answer; it prints their statuses
// (200, or 503 past the isolate's budget: functions/middleware/answer-budget.ts) and the heap's
// peak as sampled between tasks (a lower bound: a synchronous JSON.parse is not sampled inside).
// A child whose heap runs out dies, as the isolate would. Figures: bench/results/README.md "Memory".

import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { connectNodeDatabase } from "../db/node-client.ts";
import { LARGE_ANSWERS_AT_ONCE } from "../functions/middleware/answer-budget.ts";
import { createBenchOrg, withBenchDatabase } from "./lib/data.ts";

export interface MemoryRun {
  concurrency: number;
  unbounded: boolean;
  statuses: number[];
  baselineMB: number;
  peakMB: number;
  limitMB: number;
}

/**
 * One isolate's run, or null when it died (its heap ran out). Asynchronous: the SQL endpoint it
 * reaches runs in this process.
 */
export async function runIsolate(
  settings: { databaseUrl: string; sqlEndpoint: string; key: string },
  concurrency: number,
  unbounded = false,
): Promise<MemoryRun | null> {
  const child = await promisify(execFile)(
    process.execPath,
    ["--max-old-space-size=128", "--expose-gc", "--import", "tsx", "bench/memory-isolate.ts"],
    {
      env: {
        ...process.env,
        DATABASE_URL: settings.databaseUrl,
        LOCAL_SQL_ENDPOINT: settings.sqlEndpoint,
        BENCH_KEY: settings.key,
        CONCURRENCY: String(concurrency),
        UNBOUNDED: unbounded ? "1" : "0",
      },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    },
  ).catch((failed: { stdout?: string }) => ({ stdout: failed.stdout ?? "" }));
  const line = child.stdout.split("\n").find((l) => l.startsWith("MEMORY "));
  return line ? (JSON.parse(line.slice("MEMORY ".length)) as MemoryRun) : null;
}

/** An organisation whose task pages are 4 MiB: answers its key. */
export async function largePages(db: ReturnType<typeof connectNodeDatabase>): Promise<string> {
  const org = await createBenchOrg(db, "bench memory", { people: 2, projects: 2 });
  await db.query(
    `insert into tasks (id, org_id, project_id, assignee_id, title, description, due_date)
     select gen_random_uuid(), $1::uuid, ($2::uuid[])[1], ($3::uuid[])[1], 'Large task ' || i, repeat('€', 10000), date '2026-06-30'
       from generate_series(1, 400) i`,
    [org.orgId, org.projects, org.people],
  );
  return org.key;
}

async function main() {
  await withBenchDatabase(async ({ url, sqlEndpoint, db }) => {
    const settings = { databaseUrl: url, sqlEndpoint, key: await largePages(db) };
    console.log(`One isolate (Node ${process.version}, --max-old-space-size=128), GET /v1/tasks?limit=200 pages of 4 MiB at once:\n`);
    console.log("| budget | at once | 200 | 503 | heap at rest MB | heap peak MB (sampled) |\n|---|--:|--:|--:|--:|--:|");
    const runs: Array<[boolean, number]> = [
      ...[1, LARGE_ANSWERS_AT_ONCE, 4 * LARGE_ANSWERS_AT_ONCE].map((n): [boolean, number] => [false, n]),
      ...[LARGE_ANSWERS_AT_ONCE, 2 * LARGE_ANSWERS_AT_ONCE, 4 * LARGE_ANSWERS_AT_ONCE].map((n): [boolean, number] => [true, n]),
    ];
    for (const [unbounded, concurrency] of runs) {
      const budget = unbounded ? "none" : `${LARGE_ANSWERS_AT_ONCE} at once`;
      const run = await runIsolate(settings, concurrency, unbounded);
      if (!run) {
        console.log(`| ${budget} | ${concurrency} | the isolate died: out of heap | | | |`);
        continue;
      }
      const count = (status: number) => run.statuses.filter((s) => s === status).length;
      if (count(200) + count(503) < concurrency) console.log(`(other statuses: ${run.statuses.join(", ")})`);
      console.log(
        `| ${budget} | ${concurrency} | ${count(200)} | ${count(503)} | ${run.baselineMB.toFixed(1)} | ${run.peakMB.toFixed(1)} |`,
      );
    }
  });
}

if (process.argv[1]?.endsWith("memory.ts")) await main();
