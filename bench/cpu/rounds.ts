import { setTimeout as sleep } from "node:timers/promises";
import type { BenchOrg } from "../lib/data.ts";
import { httpLoad, type HttpLoad } from "../lib/load.ts";
import type { Progress } from "../lib/progress.ts";
import { int, ms } from "../lib/table.ts";
import type { Plan } from "../sections/context.ts";
import {
  CALLS,
  CONCURRENCY,
  GROUP_NAMES,
  GROUPS,
  idleMs,
  isFloor,
  mapGroups,
  SETTLE_MS,
  type ApiKey,
  type FloorKey,
  type Group,
  type Measure,
  type Target,
} from "./calls.ts";
import { spentMs, type CpuTimes } from "./cpu-clock.ts";

// Section 8's measuring (bench/sections/cpu.ts): each call type's requests, the warm-up, the CPU
// each group spends with no calls, and the rounds, in which every call type sends a batch between
// two readings of each group's CPU.

type Load = Omit<HttpLoad, "connections" | "amount">;
/** Each process group's CPU time now, for the processes serving `target`. */
export type ReadCpu = (target: Target) => Promise<Record<Group, CpuTimes>>;

/** One call type's batches: the CPU each group spent in each (idle included), and the load's figures. */
export interface Measured {
  raw: Record<Group, number[]>;
  seconds: number[];
  rps: number[];
  p50: number[];
  p99: number[];
  failures: number;
  lost: number;
  /** Per batch: no failed call and no process ended during it. */
  valid: boolean[];
}

/** The requests each measure sends: the floors' to the hello-world Worker, the API calls' to their Worker. */
export function callLoads(
  urls: { worker: string; floor: string; against: string },
  org: BenchOrg,
  ids: string[],
): (measure: Measure) => Load {
  const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
  let n = 0;
  const apiLoads = (workerUrl: string): Record<ApiKey, Load> => ({
    unknown: { url: `${workerUrl}/v1/nope`, headers, expectStatus: 404 },
    describe: { url: `${workerUrl}/v1`, headers },
    task: { url: `${workerUrl}/v1/tasks/${ids[0]}`, headers },
    list: { url: `${workerUrl}/v1/tasks?limit=50`, headers },
    create: {
      url: `${workerUrl}/v1/tasks`,
      method: "POST",
      headers,
      body: () =>
        JSON.stringify({
          title: `CPU task ${n++}`,
          projectId: org.projects[n % org.projects.length]!,
          assigneeId: org.people[n % org.people.length]!,
          dueDate: "2026-06-01",
        }),
    },
    change: {
      url: `${workerUrl}/v1/tasks/x`,
      method: "PATCH",
      headers,
      path: () => `/v1/tasks/${ids[n++ % ids.length]}`,
      body: () => JSON.stringify({ title: `CPU change ${n}` }),
    },
  });
  let floorChanges = 0;
  const floorLoads: Record<FloorKey, Load> = {
    floor: { url: `${urls.floor}/`, headers },
    ioDescribe: { url: `${urls.floor}/io/minimal/describe/${org.keyHash}`, headers },
    ioTask: { url: `${urls.floor}/io/minimal/task/${org.keyHash}/${ids[0]}`, headers },
    ioList: { url: `${urls.floor}/io/minimal/list/${org.keyHash}`, headers },
    ioCreate: {
      url: `${urls.floor}/io/minimal/create`,
      headers,
      // The projects and people the API's POST takes in turn.
      path: () => {
        const i = floorChanges++;
        return `/io/minimal/create/${org.keyHash}/${org.projects[i % org.projects.length]}/${org.people[i % org.people.length]}/${org.orgId}`;
      },
    },
    ioChange: {
      url: `${urls.floor}/io/minimal/change`,
      headers,
      // The same tasks as the API's PATCH, in turn.
      path: () => `/io/minimal/change/${org.keyHash}/${ids[floorChanges++ % ids.length]}/${org.orgId}`,
    },
    ioRead: { url: `${urls.floor}/io/read`, headers },
    ioPublish: { url: `${urls.floor}/io/publish/${org.orgId}`, headers },
  };
  const thisLoads = apiLoads(urls.worker);
  const againstLoads = apiLoads(urls.against);
  return ({ call, target }) => (isFloor(call.key) ? floorLoads[call.key] : (target === "against" ? againstLoads : thisLoads)[call.key]);
}

export async function warmUp(measures: Measure[], loadOf: (measure: Measure) => Load, warmup: number): Promise<void> {
  for (const measure of measures) {
    const result = await httpLoad({ ...loadOf(measure), connections: CONCURRENCY, amount: warmup });
    if (result.failures > 0)
      throw new Error(
        `cpu: warm-up of ${measure.call.name}${measure.target === "against" ? " (against)" : ""}: ${result.failures} of ${warmup} calls failed`,
      );
  }
  await sleep(SETTLE_MS);
}

/**
 * Reads the CPU each Worker's processes and the floor's spend with no calls at all, ms a second by
 * group, into `readings` (one entry a reading); answers the progress line.
 */
export async function readIdle(
  plan: Plan,
  targets: Target[],
  read: ReadCpu,
  readings: Partial<Record<Target, Record<Group, number>>>[],
): Promise<string> {
  const readAll = async () =>
    Object.fromEntries(await Promise.all(targets.map(async (t) => [t, await read(t)] as const))) as Record<Target, Record<Group, CpuTimes>>;
  const before = await readAll();
  const started = performance.now();
  await sleep(idleMs(plan));
  const after = await readAll();
  const seconds = (performance.now() - started) / 1000;
  readings.push(Object.fromEntries(targets.map((t) => [t, mapGroups((g) => spentMs(before[t][g], after[t][g]).ms / seconds)])));
  const line = (spent: Record<Group, CpuTimes>[], groups: readonly Group[]) =>
    groups.map((g) => `${GROUP_NAMES[g]} ${(spentMs(spent[0]![g], spent[1]![g]).ms / seconds).toFixed(1)}`).join(", ");
  return `idle CPU, ms a second: ${line([before.worker, after.worker], GROUPS)}; the hello-world Worker's ${line([before.floor, after.floor], ["workerd", "proxy", "wrangler"])}`;
}

export interface Rounds {
  rounds: number;
  calls: number;
  /** With PGlite the Postgres column is the SQL endpoint's process, whose ending is counted there. */
  embedded: boolean;
  progress: Progress;
}

/** Every measure's batch in each round, the order rotating; each batch between two readings of the CPU. */
export async function runRounds(
  { rounds, calls, embedded, progress }: Rounds,
  measures: Measure[],
  loadOf: (measure: Measure) => Load,
  read: ReadCpu,
): Promise<Map<string, Measured>> {
  const measured = new Map<string, Measured>(
    measures.map((c) => [
      c.id,
      { raw: mapGroups(() => [] as number[]), seconds: [], rps: [], p50: [], p99: [], failures: 0, lost: 0, valid: [] },
    ]),
  );
  for (let round = 0; round < rounds; round++) {
    // The order rotates each round, so no call type is always first (or always after a write).
    // A call's batches on the two Workers (--against) run one after the other, which first
    // alternating by round, so a drift of the machine's load within a round touches both alike.
    const slots = CALLS.map((call) => measures.filter((m) => m.call.key === call.key));
    const order = slots.map((_, i) => slots[(i + round) % slots.length]!).flatMap((slot) => (round % 2 ? [...slot].reverse() : slot));
    for (const measure of order) {
      const { call, target } = measure;
      progress.step(
        `cpu: round ${round + 1}/${rounds}, ${call.name}${target === "against" ? " (against)" : ""}, ${calls} calls at c=${CONCURRENCY}`,
      );
      const before = await read(target);
      const startedAt = performance.now();
      const result = await httpLoad({ ...loadOf(measure), connections: CONCURRENCY, amount: calls });
      await sleep(SETTLE_MS);
      const after = await read(target);
      const m = measured.get(measure.id)!;
      m.seconds.push((performance.now() - startedAt) / 1000);
      const spent = mapGroups((g) => spentMs(before[g], after[g]));
      for (const g of GROUPS) m.raw[g].push(spent[g].ms);
      // A process that ended mid-batch (a restart) took its CPU with it; failed calls did not do the work.
      const lostIn = GROUPS.filter((g) => spent[g].lost > 0 && !(embedded && g === "postgres"));
      const lost = lostIn.reduce((sum, g) => sum + spent[g].lost, 0);
      m.lost += lost;
      m.valid.push(lost === 0 && result.failures === 0);
      m.rps.push(result.rps);
      m.p50.push(result.p50);
      m.p99.push(result.p99);
      m.failures += result.failures;
      progress.done(
        `CPU ms a call, idle CPU included: ${GROUPS.filter((g) => !(embedded && g === "postgres"))
          .map((g) => `${GROUP_NAMES[g]} ${ms(spent[g].ms / calls)}`)
          .join(", ")}; ` +
          `${int(result.rps)} req/s${result.failures ? `, ${result.failures} FAILED` : ""}${lost ? `, ${lost} process(es) ENDED mid-batch (${lostIn.map((g) => GROUP_NAMES[g]).join(", ")})` : ""}`,
      );
    }
  }
  return measured;
}
