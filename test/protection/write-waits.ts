import { expect } from "vitest";
import { updateTask } from "../../db/statements/tasks.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { query, testDatabase } from "../helpers/database.ts";
import type { Tenant } from "../helpers/fixtures.ts";

// What the tests of bounded work under an organisation's write lock share (write-stalls.test.ts,
// cascade-stalls.test.ts): large organisations built straight in SQL, and the time a write to
// another record waits while the work under test runs.

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Where inserted tasks go: a project and an assignee of the tenant. */
export interface TaskPlace {
  projectId: string;
  assigneeId: string;
}

/**
 * Rows of a large organisation go in by statements of ROWS_PER_STATEMENT at most: the embedded
 * PGlite serves every test file on one session, a statement at a time, so one statement writing
 * 20 000 tasks would hold up another file's writes as much as the work it measures.
 */
const ROWS_PER_STATEMENT = 1_000;

/** Inserts `ids` in statements of ROWS_PER_STATEMENT at most, `insert(chunk)` each. */
export async function inChunks(ids: string[], insert: (chunk: string[], from: number) => Promise<unknown>): Promise<string[]> {
  for (let from = 0; from < ids.length; from += ROWS_PER_STATEMENT) await insert(ids.slice(from, from + ROWS_PER_STATEMENT), from);
  return ids;
}

/** Tasks, each blocked by `blockedBy` and carrying `more` (parentId, labelIds, status); their ids, in order. */
export function insertTasks(
  tenant: Tenant,
  at: TaskPlace,
  count: number,
  blockedBy: string[] = [],
  more: { parentId?: string; labelIds?: string[]; status?: string } = {},
): Promise<string[]> {
  const ids = Array.from({ length: count }, () => uuidv7());
  return inChunks(ids, (chunk) =>
    query(
      `insert into tasks (id, org_id, project_id, assignee_id, title, due_date, blocked_by, parent_id, label_ids, status)
       select id, $2, $3, $4, 'Graph task', '2026-06-30', $5::uuid[], $6::uuid, $7::uuid[], $8 from unnest($1::uuid[]) as x(id)`,
      [chunk, tenant.org.id, at.projectId, at.assigneeId, blockedBy, more.parentId ?? null, more.labelIds ?? [], more.status ?? "todo"],
    ),
  );
}

/**
 * Renames `task` over and over while `work` runs (and once after), each rename done before the
 * next starts: how much longer than usual each took, in ms. Each is the API's own write statement
 * (db/statements/tasks.ts updateTask), sent to the database by this test rather than through the
 * Worker: it queues on the organisation's write lock as an API write does, while the wait of an
 * API write would also count the CPU the work takes in the tests' one Worker thread, which a
 * deployment spreads over many isolates.
 */
export async function waitsOfWritesDuring<T>(
  tenant: Tenant,
  task: string,
  work: () => Promise<T>,
): Promise<{ waits: number[]; answer: T; renames: number }> {
  let n = 0;
  const rename = async () => {
    const started = performance.now();
    const outcome = await updateTask(testDatabase(), { orgId: tenant.org.id }, task, { title: `Renamed ${++n}` }, null);
    expect(outcome.updated).not.toBeNull();
    return performance.now() - started;
  };
  const usual = median([await rename(), await rename(), await rename(), await rename(), await rename()]);
  let done = false;
  const working = work().finally(() => (done = true));
  const during: number[] = [];
  while (!done) during.push(await rename());
  during.push(await rename());
  return { waits: during.map((ms) => ms - usual), answer: await working, renames: n };
}

/**
 * The writes were not held up: half waited under 100 ms, nine in ten under 300 ms, and none a
 * second (the bound). A single write on a machine whose two cores run the whole suite is
 * sometimes held up by its own scheduling (124 ms seen in a full run), which a stray wait must not
 * turn into a failure; a lock held for a long walk or cascade held up every write that met it, by
 * all of it (0.6 to 6.6 s before the bounds).
 */
export function expectWritesNotHeld(waits: number[]) {
  const sorted = [...waits].sort((a, b) => a - b);
  const seen = `waits: ${sorted.map(Math.round).join(", ")}`;
  const percentile = (p: number) => sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)]!;
  expect(percentile(0.5), seen).toBeLessThan(100);
  expect(percentile(0.9), seen).toBeLessThan(300);
  expect(sorted.at(-1), seen).toBeLessThan(1000);
}

/** How long each call of `calls` took, in ms, one after the other, with what the writes to `other` waited meanwhile (logged). */
export async function timedBeside(label: string, tenant: Tenant, other: string, calls: (() => Promise<void>)[]) {
  const took: number[] = [];
  const { waits, renames } = await waitsOfWritesDuring(tenant, other, async () => {
    for (const call of calls) {
      const started = performance.now();
      await call();
      took.push(performance.now() - started);
    }
  });
  console.info(
    `[write-stalls] ${label}: median ${median(took).toFixed(1)} ms; writes meanwhile waited ${median(waits).toFixed(1)} ms (median), ${Math.max(...waits).toFixed(1)} ms at most`,
  );
  return { waits, renames };
}
