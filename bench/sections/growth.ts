import pg from "pg";
import type { Database } from "../../db/client.ts";
import { listRecords, type ListQuery } from "../../db/statements/engine/read.ts";
import { createTask, taskResource, type TaskFilters } from "../../db/statements/tasks.ts";
import { decodeCursor, encodeCursor, parseSort, type PageRequest } from "../../domain/paging.ts";
import { createBenchOrg, growTasks, type BenchOrg } from "../lib/data.ts";
import { percentile } from "../lib/load.ts";
import type { BenchStack } from "../lib/stack.ts";
import { ms, type Plans } from "../lib/table.ts";
import type { BenchRun } from "./context.ts";

// Section 4: growth. A filtered, paged task list (first page and a page in the middle), the
// "what changed since my last sync" list, a sorted list, a search, the filtered list with its
// related records embedded, and a single write, at 1 k, 10 k and 100 k tasks; then the query plans
// they rely on, at the largest size.

export const GROWTH = [1_000, 10_000, 100_000];
export const STEPS = GROWTH.length + 1;

const p50 = (v: number[]) => percentile(Float64Array.from(v).sort(), 50);

/** One organisation of each size, with its paths and a cursor to the middle of its list. */
interface Sized {
  size: number;
  org: BenchOrg;
  listPath: string;
  deepPath: string;
  cursor: string;
  headers: Record<string, string>;
}

export async function growth({ stack, plan, progress, rows }: BenchRun): Promise<Plans> {
  // One organisation per size, all in the same tables, measured in interleaved rounds (one call
  // to each size in turn), so a change in the machine's load touches every size alike.
  // "What changed since my last sync": only what the bench itself writes from here on matches.
  const since = new Date().toISOString();
  const syncPath = `/v1/tasks?updatedSince=${since}&limit=50`;
  const sortedPath = "/v1/tasks?sort=-dueDate&limit=50";
  const searchPath = "/v1/tasks?q=scaffold&limit=50";
  const sizes = await loadSizes(stack, progress);
  const get = async (path: string, headers: Record<string, string>) => {
    const response = await fetch(stack.workerUrl + path, { headers });
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const post = async ({ org, headers }: Sized) => {
    const response = await fetch(`${stack.workerUrl}/v1/tasks`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: "Growth", projectId: org.projects[0], assigneeId: org.people[0], dueDate: "2026-06-01" }),
    });
    if (response.status !== 201) throw new Error(`POST /v1/tasks: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const timed = async (run: () => Promise<unknown>) => {
    const t0 = performance.now();
    await run();
    return performance.now() - t0;
  };
  const measures = [
    ["GET /v1/tasks?projectId=…&status=todo,in_progress&limit=50", "list"],
    ["the same list, a page in the middle (cursor)", "deep"],
    ["GET /v1/tasks?updatedSince=<bench start>&limit=50", "sync"],
    ["GET /v1/tasks?sort=-dueDate&limit=50", "sorted"],
    ["GET /v1/tasks?q=scaffold&limit=50 (25 matches at every size)", "search"],
    ["the filtered list with ?expand=assignee,project,milestone", "expanded"],
    ["POST /v1/tasks", "write"],
  ] as const;
  type Measure = (typeof measures)[number][1];
  const calls: Record<Measure, (entry: Sized) => Promise<void>> = {
    list: (e) => get(e.listPath, e.headers),
    deep: (e) => get(e.deepPath, e.headers),
    sync: (e) => get(syncPath, e.headers),
    sorted: (e) => get(sortedPath, e.headers),
    search: (e) => get(searchPath, e.headers),
    expanded: (e) => get(`${e.listPath}&expand=assignee,project,milestone`, e.headers),
    write: (e) => post(e),
  };
  progress.step(`growth: ${plan.growthSamples} rounds of ${measures.length} calls at each size`);
  const results = sizes.map(({ size }) => ({
    size,
    ...(Object.fromEntries(measures.map(([, key]) => [key, [] as number[]])) as Record<Measure, number[]>),
  }));
  for (let round = -5; round < plan.growthSamples; round++) {
    for (const [i, entry] of sizes.entries()) {
      for (const [, key] of measures) {
        const took = await timed(() => calls[key](entry));
        if (round >= 0) results[i]![key].push(took); // the first rounds warm up
      }
    }
  }
  progress.done(results.map((r) => `${r.size / 1000}k: ${measures.map(([, key]) => ms(p50(r[key]))).join("/")} ms`).join(", "));
  pushRows(rows, measures, results);
  const largest = sizes.at(-1)!;
  return explainGrowth(stack, largest.org, largest.org.projects[0]!, largest.cursor, since);
}

/** An organisation of each size in GROWTH, its tasks grown, and the paths each round calls. */
async function loadSizes(stack: BenchRun["stack"], progress: BenchRun["progress"]): Promise<Sized[]> {
  const sizes: Sized[] = [];
  for (const size of GROWTH) {
    progress.step(`growth: an organisation with ${size.toLocaleString("en-US")} tasks`);
    const org = await createBenchOrg(stack.db, `bench growth ${size} ${Date.now()}`);
    await growTasks(stack.db, org, size);
    const listPath = `/v1/tasks?projectId=${org.projects[0]}&status=todo,in_progress&limit=50`;
    const cursor = await middleCursor(stack.db, org, org.projects[0]!);
    sizes.push({
      size,
      org,
      listPath,
      deepPath: `${listPath}&cursor=${cursor}`,
      cursor,
      headers: { authorization: `Bearer ${org.key}`, "content-type": "application/json" },
    });
    progress.done("loaded and analyzed");
  }
  return sizes;
}

/** A row per call and size: its p50 and p99, and the spread of the p50s at the largest size. */
function pushRows<Key extends string>(
  rows: BenchRun["rows"],
  measures: readonly (readonly [string, Key])[],
  results: ({ size: number } & Record<Key, number[]>)[],
) {
  for (const [name, key] of measures) {
    const p50s = results.map((r) => p50(r[key]));
    const spread = Math.max(...p50s) / Math.min(...p50s) - 1;
    results.forEach((r, i) => {
      rows.push({
        section: "4 growth",
        name,
        load: `${r.size.toLocaleString("en-US")} tasks`,
        p50: p50s[i],
        p99: percentile(Float64Array.from(r[key]).sort(), 99),
        ...(i === results.length - 1 ? { note: `p50 spread ${Math.round(spread * 100)}% (target ≤ 20%)` } : {}),
      });
    });
  }
}

async function middleCursor(db: Database, org: BenchOrg, project: string): Promise<string> {
  const { rows } = await db.query<{ created_at: Date; id: string }>(
    `select created_at, id from tasks where org_id = $1 and project_id = $2 and status in ('todo','in_progress')
      order by created_at, id offset (select count(*) / 2 from tasks where org_id = $1 and project_id = $2 and status in ('todo','in_progress')) limit 1`,
    [org.orgId, project],
  );
  return encodeCursor([], { values: [rows[0]!.created_at.toISOString()], id: rows[0]!.id });
}

/** EXPLAIN ANALYZE of the exact statements the growth calls send, at the largest size. */
async function explainGrowth(stack: BenchStack, org: BenchOrg, project: string, cursor: string, since: string): Promise<Plans> {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const statements: { text: string; params: unknown[] }[] = [];
    const recorder: Database = {
      query: async <R>(text: string, params: unknown[] = []) => {
        statements.push({ text, params });
        return { rows: (await client.query(text, params)).rows as R[] };
      },
      transaction: () => Promise.reject(new Error("the growth plans explain single statements")),
      queryCount: 0,
    };
    const actor = { keyHash: org.keyHash };
    const listTasks = (page: PageRequest, filters: TaskFilters, query: ListQuery = {}) =>
      listRecords(recorder, actor, taskResource, { page, filters, ...query });
    await client.query("begin");
    await listTasks({ limit: 50, sort: [], after: null }, { projectId: project, status: ["todo", "in_progress"] });
    await listTasks({ limit: 50, sort: [], after: decodeCursor(cursor, [], {}) }, { projectId: project, status: ["todo", "in_progress"] });
    await listTasks({ limit: 50, sort: [], after: null }, { updatedSince: since });
    await listTasks({ limit: 50, sort: parseSort("-dueDate", taskResource.sortable), after: null }, {});
    await listTasks({ limit: 50, sort: [], after: null }, {}, { search: "scaffold" });
    await listTasks(
      { limit: 50, sort: [], after: null },
      { projectId: project, status: ["todo", "in_progress"] },
      {
        view: { fields: null, expand: Object.values(taskResource.expansions) },
      },
    );
    await createTask(recorder, actor, { title: "Plan", projectId: project, assigneeId: org.people[0]!, dueDate: "2026-06-01" });
    await client.query("rollback");
    const explain = async ({ text, params }: { text: string; params: unknown[] }) => {
      await client.query("begin");
      try {
        const result = await client.query<{ "QUERY PLAN": string }>(
          `explain (analyze, costs off, timing off, summary off) ${text}`,
          params,
        );
        return result.rows.map((r) => r["QUERY PLAN"]).join("\n");
      } finally {
        await client.query("rollback");
      }
    };
    const [list, deepPage, sync, sorted, search, expanded, create] = statements;
    return {
      list: await explain(list!),
      deepPage: await explain(deepPage!),
      sync: await explain(sync!),
      sorted: await explain(sorted!),
      search: await explain(search!),
      expanded: await explain(expanded!),
      create: await explain(create!),
    };
  } finally {
    await client.end();
  }
}
