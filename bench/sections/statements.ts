import { existsSync } from "node:fs";
import { resolve } from "node:path";
import * as read from "../../db/statements/engine/read.ts";
import * as organisations from "../../db/statements/organisations.ts";
import * as tasks from "../../db/statements/tasks.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { median } from "../cpu/report.ts";
import { createBenchOrg, growTasks, someTasks } from "../lib/data.ts";
import type { Progress } from "../lib/progress.ts";
import { waitForQuiet } from "../lib/quiet.ts";
import { ms, type Row } from "../lib/table.ts";
import { openTimedConnection, type Phases, type TimedConnection } from "../statements/connection.ts";
import { minimalCreateTask, minimalDescribe, minimalGetTask, minimalListTasks, minimalPatchTitle } from "../statements/minimal.ts";
import type { BenchRun, Plan } from "./context.ts";

// Section 9: the database's time per call, against a floor that does the same work (issue 36).
// For GET /v1, GET one task, a list of 50, a POST of a task and a PATCH of a task's title: opsroom's statement (the
// db/statements function the service calls, key check included, on an organisation of 1,000
// tasks) and the minimal statement written by hand beside it (bench/statements/minimal.ts), sent
// on ONE connection in turn, the order alternating each round (bench/statements/connection.ts:
// unnamed extended protocol, as the SQL endpoint sends the driver's statements). Two passes:
//
//  1. timed: the wall time of each query from the client, medians over the rounds;
//  2. accounted: the server's own log durations of each protocol message, so parse, plan (bind)
//     and execute show apart; medians over the rounds (means on PGlite, whose log counts whole ms).
//
// The ratio is opsroom's median over its floor's; the target is at most 1.5x. With `--against=<dir>`
// that checkout's statements (its db/statements functions, imported) take their turns too, in the
// same rounds: before and after a change in one run.

export const STEPS = 3;
const rounds = (plan: Plan) => (plan.quick ? 60 : 300);
export const TARGET = 1.5;
/** The calls issue 36 sets the target for; GET /v1's and a create's statements are measured beside them (their floors are also section 8's). */
const TARGETED = new Set(["GET /v1/tasks/:id", "GET /v1/tasks?limit=50", "PATCH /v1/tasks/:id (title)"]);

type Side = "opsroom" | "floor" | "against";
type Call = (c: TimedConnection, i: number) => Promise<unknown>;
type Pair = { call: string } & { [side in Side]?: Call };

export interface StatementFigures {
  call: string;
  /** Each side's statement length, client-timed median (ms) and server-accounted phases (null when the server logged none). */
  sides: Partial<Record<Side, { chars: number; ms: number; phases: Phases | null }>>;
  /** opsroom's over its floor's: client medians, and the server phases' sums. */
  ratio: number;
  serverRatio: number | null;
}

type Statements = { organisations: typeof organisations; read: typeof read; tasks: typeof tasks };
const loadStatements = async (dir: string): Promise<Statements> => ({
  organisations: (await import(resolve(dir, "db/statements/organisations.ts"))) as typeof organisations,
  // A checkout from before issue 49's split keeps read.ts beside the nouns, not in engine/.
  read: (await import(
    resolve(dir, existsSync(resolve(dir, "db/statements/engine")) ? "db/statements/engine/read.ts" : "db/statements/read.ts")
  )) as typeof read,
  tasks: (await import(resolve(dir, "db/statements/tasks.ts"))) as typeof tasks,
});

export async function statementCost(
  { stack, plan, progress, rows }: BenchRun,
  options: { against?: string } = {},
): Promise<StatementFigures[]> {
  progress.step("statements: an organisation of 1,000 tasks, one connection");
  const org = await createBenchOrg(stack.db, `bench statements ${Date.now()}`);
  await growTasks(stack.db, org, 1_000);
  const ids = await someTasks(stack.db, org, 96);
  progress.done(`organisation ${org.orgId}`);
  const actor = { keyHash: org.keyHash };
  const ours: Statements = { organisations, read, tasks };
  const theirs = options.against ? await loadStatements(options.against) : null;
  const newTask = (i: number, n: number) => ({
    projectId: org.projects[i % org.projects.length]!,
    assigneeId: org.people[i % org.people.length]!,
    dueDate: "2026-06-01",
    title: `Bench ${i} ${n}`,
  });
  const calls = (x: Statements, n: number) => ({
    describe: () => (c: TimedConnection) => x.organisations.describeCaller(c.db, actor, null),
    get: () => (c: TimedConnection) => x.read.getRecord(c.db, actor, x.tasks.taskResource, ids[0]!),
    list: () => (c: TimedConnection) =>
      x.read.listRecords(c.db, actor, x.tasks.taskResource, { page: { limit: 50, sort: [], after: null }, filters: {} }),
    create: () => (c: TimedConnection, i: number) => x.tasks.createTask(c.db, actor, newTask(i, n)),
    patch: () => (c: TimedConnection, i: number) =>
      x.tasks.updateTask(c.db, actor, ids[(3 * i + n) % 96]!, { title: `Bench ${i} ${n}` }, null),
  });
  const pairs: Pair[] = (["describe", "get", "list", "create", "patch"] as const).map((kind) => ({
    call: {
      describe: "GET /v1",
      get: "GET /v1/tasks/:id",
      list: "GET /v1/tasks?limit=50",
      create: "POST /v1/tasks",
      patch: "PATCH /v1/tasks/:id (title)",
    }[kind],
    opsroom: calls(ours, 0)[kind](),
    floor: {
      describe: (c: TimedConnection) => c.run(minimalDescribe(org.keyHash)),
      get: (c: TimedConnection) => c.run(minimalGetTask(org.keyHash, ids[0]!)),
      list: (c: TimedConnection) => c.run(minimalListTasks(org.keyHash, 51)),
      create: (c: TimedConnection, i: number) => c.run(minimalCreateTask(org.keyHash, { id: uuidv7(), ...newTask(i, 1) }, uuidv7())),
      patch: (c: TimedConnection, i: number) => c.run(minimalPatchTitle(org.keyHash, ids[(3 * i + 1) % 96]!, `Bench ${i} floor`, uuidv7())),
    }[kind],
    ...(theirs ? { against: calls(theirs, 2)[kind]() } : {}),
  }));
  // Postgres's own background work after the loading (and after section 8's writes) first.
  await waitForQuiet();
  const conn = await openTimedConnection(stack.databaseUrl);
  try {
    const measured = await measurePairs(conn, pairs, rounds(plan), progress);
    const figures = pairs.map((p) => figuresOf(p, measured, conn.accounts));
    progress.done(conn.accounts ? figures.map((f) => `${f.call} ${f.ratio.toFixed(2)}x`).join(", ") : "the server logged no durations");
    for (const f of figures) rows.push(...rowsOf(f));
    return figures;
  } finally {
    await conn.close();
  }
}

type Measured = Awaited<ReturnType<typeof measurePairs>>;

function figuresOf(p: Pair, { client, server, chars }: Measured, accounts: boolean): StatementFigures {
  const sides: StatementFigures["sides"] = {};
  for (const side of SIDES.filter((x) => p[x]))
    sides[side] = {
      chars: chars[p.call]![side]!,
      ms: median(client[p.call]![side]!),
      phases: accounts ? medianPhases(server[p.call]![side]!) : null,
    };
  const [o, f] = [sides.opsroom!, sides.floor!];
  return { call: p.call, sides, ratio: o.ms / f.ms, serverRatio: o.phases && f.phases ? total(o.phases) / total(f.phases) : null };
}

const LABEL: Record<Side, string> = { opsroom: "opsroom's statement", floor: "the minimal statement", against: "[against] its statement" };

function rowsOf(f: StatementFigures): Row[] {
  const split = (x: Phases) => `server: parse ${ms(x.parse)} + plan ${ms(x.plan)} + execute ${ms(x.execute)} = ${ms(total(x))} ms`;
  const floor = f.sides.floor!;
  return SIDES.filter((side) => f.sides[side]).map((side) => {
    const x = f.sides[side]!;
    const ratios =
      side === "floor"
        ? ""
        : `${(x.ms / floor.ms).toFixed(2)}x its floor${x.phases && floor.phases ? ` (server ${(total(x.phases) / total(floor.phases)).toFixed(2)}x)` : ""}; ${TARGETED.has(f.call) ? `target ≤ ${TARGET}x` : "no target"}; `;
    return {
      section: "9 statements",
      name: `${f.call}: ${LABEL[side]} (${x.chars.toLocaleString("en-US")} chars)`,
      load: "1 connection",
      p50: x.ms,
      note: `${ratios}${x.phases ? split(x.phases) : ""}`,
    };
  });
}

const SIDES: Side[] = ["opsroom", "floor", "against"];
const total = (p: Phases) => p.parse + p.plan + p.execute;

/**
 * Each phase's median over the rounds; PGlite logs whole milliseconds, so there (every value a
 * whole number) the mean, which the rounds' mix of 0s and 1s makes meaningful.
 */
const medianPhases = (all: Phases[]): Phases => {
  const whole = all.every((p) => Number.isInteger(p.parse) && Number.isInteger(p.plan) && Number.isInteger(p.execute));
  const of = (k: keyof Phases) => (whole ? all.reduce((s, p) => s + p[k], 0) / Math.max(1, all.length) : median(all.map((p) => p[k])));
  return { parse: of("parse"), plan: of("plan"), execute: of("execute") };
};

/** Both passes over the pairs, the sides' order rotating round by round: the client's times, the server's phases, the statements' lengths. */
async function measurePairs(conn: TimedConnection, pairs: Pair[], n: number, progress: Progress) {
  const chars: Record<string, Partial<Record<Side, number>>> = {};
  const client: Record<string, Partial<Record<Side, number[]>>> = {};
  const server: Record<string, Partial<Record<Side, Phases[]>>> = {};
  for (const p of pairs) {
    const sides = SIDES.filter((x) => p[x]);
    client[p.call] = Object.fromEntries(sides.map((x) => [x, []]));
    server[p.call] = Object.fromEntries(sides.map((x) => [x, []]));
    chars[p.call] = {};
  }
  const pass = async (accounted: boolean, count: number, keep: boolean) => {
    await conn.account(accounted);
    for (let i = 0; i < count; i++)
      for (const [j, p] of pairs.entries()) {
        const sides = SIDES.filter((x) => p[x]);
        for (let k = 0; k < sides.length; k++) {
          const side = sides[(i + j + k) % sides.length]!;
          await p[side]!(conn, i);
          chars[p.call]![side] = conn.lastText.length;
          if (!keep) continue;
          if (accounted && conn.last.phases) server[p.call]![side]!.push(conn.last.phases);
          else if (!accounted) client[p.call]![side]!.push(conn.last.ms);
        }
      }
  };
  progress.step(`statements: ${n} rounds timed from the client (after 30 to warm up)`);
  await pass(false, 30, false);
  await pass(false, n, true);
  progress.done(pairs.map((p) => `${p.call} ${ms(median(client[p.call]!.opsroom!))}/${ms(median(client[p.call]!.floor!))}`).join(", "));
  progress.step(`statements: ${n} rounds accounted by the server (parse, plan, execute)`);
  await pass(true, n, true);
  await conn.account(false);
  return { client, server, chars };
}
