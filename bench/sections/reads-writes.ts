import type { Database } from "../../db/client.ts";
import { connectNodeDatabase } from "../../db/node-client.ts";
import { getRecord, listRecords } from "../../db/statements/engine/read.ts";
import { createTask, taskResource, updateTask } from "../../db/statements/tasks.ts";
import { createBenchOrg, growTasks, someTasks, type BenchOrg } from "../lib/data.ts";
import { closedLoop, httpLoad, type LoadResult } from "../lib/load.ts";
import { numbers, pct, summary } from "../lib/table.ts";
import type { BenchRun } from "./context.ts";

// Sections 1 and 2: reads and writes through the API at 1, 16 and 64 connections, beside their
// ceilings in the same run: the same statement (the same db/statements function, key check
// included) from Node over node-postgres at the same concurrency, and a trivial route of the same
// Worker (an unknown path answering 404 through the whole middleware stack).

export const CONCURRENCY = [1, 16, 64];
/** Load runs in the section: the runtime ceiling, then each call through the API and from Node. */
export const STEPS = 9 * CONCURRENCY.length;

/** A call measured both ways: through the API, and its statement from Node. */
interface Case {
  name: string;
  http: Omit<Parameters<typeof httpLoad>[0], "connections" | "seconds">;
  sql: (db: Database) => Promise<unknown>;
}

/** The four calls: a list, a read, a create and a change, each with the statement it runs. */
function casesOf(base: string, org: BenchOrg, ids: string[]): Case[] {
  const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
  const actor = { keyHash: org.keyHash };
  const newTask = () => ({ title: "Bench task", projectId: org.projects[0]!, assigneeId: org.people[0]!, dueDate: "2026-06-01" });
  let n = 0;
  const nextId = () => ids[n++ % ids.length]!;
  return [
    {
      name: "GET /v1/tasks?limit=50",
      http: { url: `${base}/v1/tasks?limit=50`, headers },
      sql: (db) => listRecords(db, actor, taskResource, { page: { limit: 50, sort: [], after: null }, filters: {} }),
    },
    {
      name: "GET /v1/tasks/:id",
      http: { url: `${base}/v1/tasks/${ids[0]}`, headers },
      sql: (db) => getRecord(db, actor, taskResource, ids[0]!),
    },
    {
      name: "POST /v1/tasks",
      http: { url: `${base}/v1/tasks`, method: "POST", headers, body: () => JSON.stringify(newTask()) },
      sql: (db) => createTask(db, actor, newTask()),
    },
    {
      name: "PATCH /v1/tasks/:id",
      http: {
        url: `${base}/v1/tasks/x`,
        method: "PATCH",
        headers,
        path: () => `/v1/tasks/${nextId()}`,
        body: () => JSON.stringify({ title: `Bench ${n}` }),
      },
      sql: (db) => updateTask(db, actor, nextId(), { title: `Bench ${n}` }, null),
    },
  ];
}

export async function readsAndWrites({ stack, plan, progress, rows }: BenchRun): Promise<void> {
  // A quick run gives 64 connections a little longer, so each completes a few requests.
  const secondsAt = (c: number) => (plan.quick && c >= 64 ? 2 * plan.seconds : plan.seconds);
  const org = await createBenchOrg(stack.db, `bench reads-writes ${Date.now()}`);
  await growTasks(stack.db, org, 1_000);
  const ids = await someTasks(stack.db, org, 64);
  const base = stack.workerUrl;
  const cases = casesOf(base, org, ids);

  const runtime: Record<number, LoadResult> = {};
  for (const c of CONCURRENCY) {
    progress.step(`runtime ceiling (GET unknown path → 404) c=${c}`, secondsAt(c));
    if (c === CONCURRENCY[0])
      await httpLoad({ url: `${base}/v1/bench-no-such-path`, expectStatus: 404, connections: 16, seconds: plan.warmup });
    runtime[c] = await httpLoad({ url: `${base}/v1/bench-no-such-path`, expectStatus: 404, connections: c, seconds: secondsAt(c) });
    progress.done(summary(runtime[c]!));
    rows.push({
      section: "2 ceiling",
      name: "Worker runtime: unknown path → 404, full middleware",
      load: `c=${c}`,
      ...numbers(runtime[c]!),
    });
  }

  for (const kase of cases) {
    const api: Record<number, LoadResult> = {};
    for (const c of CONCURRENCY) {
      progress.step(`${kase.name} c=${c}`, secondsAt(c));
      if (c === CONCURRENCY[0]) await httpLoad({ ...kase.http, connections: 16, seconds: plan.warmup });
      api[c] = await httpLoad({ ...kase.http, connections: c, seconds: secondsAt(c) });
      progress.done(summary(api[c]!));
    }
    const ceiling: Record<number, LoadResult> = {};
    for (const c of CONCURRENCY) {
      progress.step(`SQL ceiling: ${kase.name}'s statement from Node (pg) c=${c}`, secondsAt(c));
      const db = connectNodeDatabase(stack.databaseUrl, { max: c });
      try {
        await closedLoop(() => kase.sql(db), c, Math.min(plan.warmup, 1));
        ceiling[c] = await closedLoop(() => kase.sql(db), c, secondsAt(c));
      } finally {
        await db.close();
      }
      progress.done(summary(ceiling[c]!));
    }
    for (const c of CONCURRENCY) {
      rows.push({
        section: "1 API",
        name: kase.name,
        load: `c=${c}`,
        ...numbers(api[c]!),
        note: [`${pct(api[c]!.rps, ceiling[c]!.rps)} of SQL, ${pct(api[c]!.rps, runtime[c]!.rps)} of runtime req/s`, numbers(api[c]!).note]
          .filter(Boolean)
          .join("; "),
      });
    }
    for (const c of CONCURRENCY)
      rows.push({
        section: "2 ceiling",
        name: `SQL of ${kase.name}, from Node (pg pool of ${c})`,
        load: `c=${c}`,
        ...numbers(ceiling[c]!),
      });
  }
}
