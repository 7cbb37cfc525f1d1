import type { Plan } from "../sections/context.ts";

// What section 8 (bench/sections/cpu.ts) measures: the call types and their targets, the process
// groups whose CPU it reads, and the shape of what it reports.

export const CONCURRENCY = 8;
/** Time for what follows the answers (the publish to the room, its fan-out) to finish inside the reading. */
export const SETTLE_MS = 300;
/** How long the processes' CPU with no calls is read, before the rounds and again after, to take it off each batch's reading. */
export const idleMs = (plan: Plan) => (plan.quick ? 2_000 : 5_000);
/** application_name of the SQL endpoint's Postgres connections (node-postgres reads PGAPPNAME), to find their backends. */
export const APPLICATION_NAME = "opsroom-bench-cpu";

/**
 * An odd number of rounds, so the median is one round's figure; 5,400 calls of each type in a full
 * run. On a loaded 2-core machine one batch's figure moves by 15-20 % from round to round, and the
 * targets sit within that of the figures: nine rounds of 600 instead of five of 400 narrow the
 * median's own spread (by about the square root of the rounds, and longer batches each). Each
 * type is first sent 1,000 times: with 100, the first rounds still paid for V8 optimising the
 * code (on its own threads, in the same process), and every figure fell round by round.
 */
export const shape = (plan: Plan) => (plan.quick ? { rounds: 3, calls: 200, warmup: 50 } : { rounds: 9, calls: 600, warmup: 1_000 });

/**
 * The call types, the floor first. Targets from issue 36: the Worker's workerd CPU a call over the
 * floor that does the same I/O, its I/O floor for a read or a write, the hello-world floor for a 404.
 */
export const CALLS = [
  { key: "floor", name: "hello-world Worker, GET / (the floor)", target: undefined },
  {
    key: "ioDescribe",
    name: "hello-world Worker, GET /io/minimal/describe (the I/O floor of GET /v1: its minimal statement)",
    target: undefined,
  },
  {
    key: "ioTask",
    name: "hello-world Worker, GET /io/minimal/task (the I/O floor of one task: its minimal statement)",
    target: undefined,
  },
  {
    key: "ioList",
    name: "hello-world Worker, GET /io/minimal/list (the I/O floor of a list of 50: its minimal statement)",
    target: undefined,
  },
  {
    key: "ioCreate",
    name: "hello-world Worker, GET /io/minimal/create (the I/O floor of a create: its minimal statement, then a post to the room)",
    target: undefined,
  },
  {
    key: "ioChange",
    name: "hello-world Worker, GET /io/minimal/change (the I/O floor of a change: its minimal statement, then a post to the room)",
    target: undefined,
  },
  { key: "ioRead", name: "hello-world Worker, GET /io/read (one SQL request of select 1)", target: undefined },
  {
    key: "ioPublish",
    name: "hello-world Worker, GET /io/publish (select 1, then a post to the room)",
    target: undefined,
  },
  { key: "unknown", name: "GET /v1/nope (unknown path → 404, full middleware)", target: 1.3 },
  { key: "describe", name: "GET /v1", target: 1.5 },
  { key: "task", name: "GET /v1/tasks/:id", target: 1.5 },
  { key: "list", name: "GET /v1/tasks?limit=50", target: 1.5 },
  { key: "create", name: "POST /v1/tasks", target: 1.5 },
  { key: "change", name: "PATCH /v1/tasks/:id (a new title)", target: 1.5 },
] as const;
export type CallKey = (typeof CALLS)[number]["key"];
export type FloorKey = "floor" | "ioDescribe" | "ioTask" | "ioList" | "ioCreate" | "ioChange" | "ioRead" | "ioPublish";
export type ApiKey = Exclude<CallKey, FloorKey>;
export const isFloor = (key: CallKey): key is FloorKey => key === "floor" || key.startsWith("io");
/**
 * The I/O floor of each call: the hello-world Worker making the subrequests the call cannot do
 * without, and no more: the call's minimal statement (bench/statements/minimal.ts, also section
 * 9's floors), the same logical work and the same answer as opsroom's statement in as few
 * characters as a hand-written statement needs; a write's floor then posts to the room
 * (bench/results/README.md "CPU per call").
 */
export const IO_FLOOR: Record<ApiKey, FloorKey> = {
  unknown: "floor",
  describe: "ioDescribe",
  task: "ioTask",
  list: "ioList",
  create: "ioCreate",
  change: "ioChange",
};
/** The floor with `select 1` for the statement, reported beside a minimal statement's floor: what the statement's own size costs. */
export const SELECT_ONE_FLOOR: Partial<Record<ApiKey, FloorKey>> = {
  describe: "ioRead",
  task: "ioRead",
  list: "ioRead",
  create: "ioPublish",
  change: "ioPublish",
};
/** The API calls (not the floors), which `--against` measures on the other Worker too. */
export const API_CALLS = CALLS.filter((c) => !isFloor(c.key));

/** The columns: each a group of processes whose CPU is summed. */
export const GROUPS = ["workerd", "proxy", "wrangler", "roomWorkerd", "partykit", "endpoint", "postgres"] as const;
export type Group = (typeof GROUPS)[number];
export const GROUP_NAMES: Record<Group, string> = {
  workerd: "workerd (the Worker)",
  proxy: "workerd (wrangler's proxy)",
  wrangler: "wrangler's Node",
  roomWorkerd: "workerd (the room)",
  partykit: "partykit's Node",
  endpoint: "SQL endpoint (Node)",
  postgres: "Postgres",
};

export function mapGroups<T>(value: (group: Group) => T): Record<Group, T> {
  return Object.fromEntries(GROUPS.map((g) => [g, value(g)])) as Record<Group, T>;
}

/** Which Worker a batch measures. */
export type Target = "worker" | "floor" | "against";

/** One call type measured on one Worker: `id` is the call's key, with "@against" on the other Worker. */
export interface Measure {
  id: string;
  call: (typeof CALLS)[number];
  target: Target;
}

/**
 * `--against=<dir>`: another checkout of opsroom (its own node_modules, or a link to these), whose
 * Worker runs beside this one, on the same SQL endpoint, database and room, and whose API calls
 * take their turns in the same rounds. Before and after are then measured in one run, under the
 * same load, instead of in two runs whose machine differs by more than most changes do.
 */
export interface CpuOptions {
  against?: string | undefined;
}

export interface CpuCall {
  key: CallKey;
  /** Set on the calls measured on the `--against` Worker. */
  against?: true;
  call: string;
  calls: number;
  /** ms of CPU per call, each process group, each round (in the order run), the idle CPU taken off. */
  perRound: Record<Group, number[]>;
  /** The same before the idle CPU is taken off. */
  perRoundRaw: Record<Group, number[]>;
  /** The median over the rounds counted. */
  median: Record<Group, number>;
  /** Rounds whose batch had no failed call and no process ending mid-batch: the medians are theirs. */
  roundsCounted: number;
  /**
   * The Worker's workerd over the floor's (medians); the same for wrangler's Node, for the proxy
   * workerd, and for both workerd processes together (the Worker's and the proxy's).
   */
  xFloor?: { workerd: number; wrangler: number; proxy: number; bothWorkerd: number };
  /**
   * The Worker's workerd over its I/O floor's (the hello-world Worker making the same subrequests),
   * and the ms a call the app spends beyond that: its own code, and the RateLimiter's call.
   */
  overIo?: { floor: FloorKey; times: number; ownMs: number; overSelectOne?: number };
  target?: number;
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  /** Processes that ended during a batch (their CPU in it is lost; a restart): should be 0. */
  lostProcesses: number;
}

export interface CpuSection {
  method: string;
  /** How long the rounds waited for the machine to be quiet after the warm-up (bench/lib/quiet.ts). */
  quietBeforeRounds?: { waitedMs: number; busy: number; quiet: boolean };
  /** How each process's CPU time was read: its exact CPU clock, or /proc's ticks (bench/cpu/cpu-clock.ts). */
  clock: string;
  rounds: number;
  callsPerBatch: number;
  concurrency: number;
  /** The "Postgres" column: which processes it sums. */
  postgres: string;
  /** What each column sums, and the processes found at the start. */
  groups: Record<Group, string>;
  processes: Record<string, { pid: number; name: string; command: string }[]>;
  /**
   * ms of CPU a second of each group with no calls (partykit's Node, for one, polls), read before
   * the rounds and after them (the lower of the two); that rate times a batch's duration is taken
   * off the batch's reading. The Worker's processes, and (floorIdleMsPerSecond) the hello-world Worker's wrangler.
   */
  idleMsPerSecond: Record<Group, number>;
  floorIdleMsPerSecond: Record<Group, number>;
  calls: CpuCall[];
  /** The Hono app's fetch alone in Node against recorded answers (bench/app-alone.ts): µs of CPU a call. */
  appAlone: AppAlone | null;
  /** With `--against`: the other checkout, its commit, and its app alone. */
  against?: { dir: string; commit: string; appAlone: AppAlone };
}

export interface AppAlone {
  node: string;
  calls: number;
  rounds: number;
  rows: { call: string; status: number; statements: number; median: number; min: number; target?: number }[];
}
