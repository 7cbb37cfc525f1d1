import { connectNodeDatabase } from "../../db/node-client.ts";
import { updateTask } from "../../db/statements/tasks.ts";
import { median } from "../cpu/report.ts";
import { createBenchOrg, growTasks, someTasks, type BenchOrg } from "../lib/data.ts";
import { closedLoop, type LoadResult } from "../lib/load.ts";
import { ms, numbers, summary } from "../lib/table.ts";
import { openTimedConnection } from "../statements/connection.ts";
import type { BenchRun } from "./context.ts";

// Section 10: how many writes one organisation takes. Every write takes its organisation's write
// lock (db/statements/engine/caller.ts orgWriteLock), so one organisation's writes run one at a time. 64
// writers PATCH task titles (the statement the service runs, key check included, from Node over
// node-postgres with a pool of 64 connections, as section 2's SQL ceiling) for a while, all in one
// organisation, then the same 64 spread over 16 organisations (4 each), and one writer alone.
// One organisation's writes being serial, 1 / its writes/s is how long each held the lock; beside
// it, what a write must do while holding it (the lock is taken after parsing and planning): its
// statement's execution (the server's own accounting, on one connection, as section 9) and its
// commit, the WAL flush (a one-row update's wall time less its execution).

export const STEPS = 5;
const WRITERS = 64;
const ORGS = 16;

export interface OrgWrites {
  alone: LoadResult;
  /** ms: each write's hold of the lock at 64 writers in one organisation, its statement's execution, a commit. */
  held: number;
  execute: number;
  commit: number;
  oneOrg: LoadResult;
  spread: LoadResult;
}

export async function orgWrites({ stack, plan, progress, rows }: BenchRun): Promise<OrgWrites> {
  progress.step(`org writes: ${ORGS} organisations of 200 tasks`);
  const orgs: { org: BenchOrg; ids: string[] }[] = [];
  for (let i = 0; i < ORGS; i++) {
    const org = await createBenchOrg(stack.db, `bench org writes ${i} ${Date.now()}`);
    await growTasks(stack.db, org, 200);
    orgs.push({ org, ids: await someTasks(stack.db, org, 64) });
  }
  progress.done(`${ORGS} organisations`);
  const db = connectNodeDatabase(stack.databaseUrl, { max: WRITERS });
  let n = 0;
  const write = (which: number) => {
    const { org, ids } = orgs[which]!;
    const i = n++;
    return updateTask(db, { keyHash: org.keyHash }, ids[i % ids.length]!, { title: `Bench write ${i}` }, null);
  };
  const seconds = plan.quick ? 2 : plan.seconds;
  const run = async (label: string, writers: number, orgOf: () => number) => {
    progress.step(`org writes: ${label}`, seconds);
    await closedLoop(() => write(orgOf()), writers, Math.min(plan.warmup, 1));
    const result = await closedLoop(() => write(orgOf()), writers, seconds);
    progress.done(summary(result));
    return result;
  };
  try {
    let w = 0;
    const alone = await run("one writer, one organisation", 1, () => 0);
    const oneOrg = await run(`${WRITERS} writers, one organisation`, WRITERS, () => 0);
    const spread = await run(`${WRITERS} writers over ${ORGS} organisations`, WRITERS, () => w++ % ORGS);
    progress.step("org writes: a write's execution and a commit, one connection, 100 each");
    const { execute, commit } = await holdParts(stack.databaseUrl, orgs[0]!);
    const held = 1000 / oneOrg.rps;
    progress.done(`held ${ms(held)} ms a write; execution ${ms(execute)} ms, commit ${ms(commit)} ms`);
    rows.push(
      { section: "10 org writes", name: "PATCH title, one writer", load: "1 org", ...numbers(alone) },
      {
        section: "10 org writes",
        name: `PATCH title, ${WRITERS} writers`,
        load: "1 org",
        ...numbers(oneOrg),
        note: `${(oneOrg.rps / alone.rps).toFixed(2)}x one writer; the lock held ${ms(held)} ms a write: execution ${ms(execute)} + commit ${ms(commit)} (with its round trip) + ${ms(held - execute - commit)} ms`,
      },
      {
        section: "10 org writes",
        name: `PATCH title, ${WRITERS} writers`,
        load: `${ORGS} orgs`,
        ...numbers(spread),
        note: `${(spread.rps / oneOrg.rps).toFixed(2)}x one organisation`,
      },
    );
    return { alone, held, execute, commit, oneOrg, spread };
  } finally {
    await db.close();
  }
}

/** Medians over 100 of a PATCH's execution (server-accounted) and of a commit (a one-row update's wall time less its execution). */
async function holdParts(url: string, { org, ids }: { org: BenchOrg; ids: string[] }) {
  const conn = await openTimedConnection(url);
  try {
    await conn.account(true);
    const executions: number[] = [];
    const commits: number[] = [];
    for (let i = 0; i < 100; i++) {
      await updateTask(conn.db, { keyHash: org.keyHash }, ids[i % ids.length]!, { title: `Bench hold ${i}` }, null);
      executions.push(conn.last.phases!.execute);
      await conn.run({ text: "update organisations set name = name where id = $1", params: [org.orgId] });
      commits.push(conn.last.ms - conn.last.phases!.parse - conn.last.phases!.plan - conn.last.phases!.execute);
    }
    return { execute: median(executions), commit: median(commits) };
  } finally {
    await conn.close();
  }
}
