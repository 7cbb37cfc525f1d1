import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startService, type ServiceProcess } from "../../cli/dev/child-process.ts";
import { reserveFreePort } from "../../cli/dev/ports.ts";
import { waitForHttp } from "../../cli/dev/readiness.ts";
import { startRealtime, startWorker, startWranglerDev } from "../../cli/dev/services.ts";
import type { Database } from "../../db/client.ts";
import { connectNodeDatabase } from "../../db/node-client.ts";
import type { BenchStack } from "../lib/stack.ts";
import { APPLICATION_NAME, mapGroups, type Group, type Target } from "./calls.ts";
import { cpuTimes, type CpuTimes } from "./cpu-clock.ts";
import { commandLine, processTree, readAllProcesses } from "./procs.ts";

// Section 8's processes (bench/sections/cpu.ts), each its own OS process, started the way
// `npm run dev` starts them (cli/dev/services.ts): the SQL endpoint, the Worker (and the
// `--against` checkout's), the hello-world Worker and the room; and the CPU each group of them
// has spent, read from /proc.

const START_TIMEOUT_MS = 120_000;
export const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface Services {
  worker: ServiceProcess;
  floor: ServiceProcess;
  realtime: ServiceProcess;
  endpoint: ServiceProcess;
  workerPort: number;
  floorPort: number;
  against?: { worker: ServiceProcess; port: number } | undefined;
}

/** What the caller stops and closes at the end, whatever happens: filled as each part starts. */
export interface Owned {
  services: ServiceProcess[];
  /** With PGlite: a connection to the database in the SQL endpoint's process. */
  ownDb?: Database & { close(): Promise<void> };
}

export interface Started {
  services: Services;
  /** Where the section loads its organisation: the stack's database, or the SQL endpoint's PGlite. */
  db: Database;
  urls: { worker: string; floor: string; against: string };
}

/**
 * The SQL endpoint's process, in front of the stack's Postgres, or holding a PGlite of its own
 * (served on `pglitePort`) when the stack is embedded; and the database the section loads.
 */
async function startEndpoint(stack: BenchStack, ports: { endpointPort: number; pglitePort: number }, owned: Owned) {
  const { endpointPort, pglitePort } = ports;
  const embedded = stack.kind === "embedded";
  const endpoint = startService({
    name: "sql",
    command: process.execPath,
    args: [
      "--import",
      "tsx",
      fileURLToPath(new URL("./sql-endpoint-process.ts", import.meta.url)),
      `--port=${endpointPort}`,
      embedded ? `--pglite-port=${pglitePort}` : `--target=${serverAddress(stack.databaseUrl)}`,
    ],
    env: { PGAPPNAME: APPLICATION_NAME },
  });
  owned.services.push(endpoint);
  await waitFor(endpoint, `http://127.0.0.1:${endpointPort}/`);
  const databaseUrl = embedded ? `postgres://postgres@127.0.0.1:${pglitePort}/postgres` : stack.databaseUrl;
  const db: Database = embedded ? (owned.ownDb = connectNodeDatabase(databaseUrl, { max: 4 })) : stack.db;
  return { endpoint, databaseUrl, db };
}

/** Starts every process in `dir` and waits until each answers. */
export async function startProcesses(stack: BenchStack, dir: string, against: string | undefined, owned: Owned): Promise<Started> {
  const [endpointPort, workerPort, floorPort, realtimePort, againstPort, pglitePort] = (await distinctPorts(6)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const { endpoint, databaseUrl, db } = await startEndpoint(stack, { endpointPort, pglitePort }, owned);

  const realtimeSecret = randomBytes(24).toString("hex");
  const urls = {
    worker: `http://127.0.0.1:${workerPort}`,
    floor: `http://127.0.0.1:${floorPort}`,
    against: `http://127.0.0.1:${againstPort}`,
  };
  const realtimeUrl = `http://127.0.0.1:${realtimePort}`;
  const workerSettings = {
    databaseUrl,
    sqlEndpoint: `127.0.0.1:${endpointPort}`,
    realtimeSecret,
    authSecret: randomBytes(32).toString("hex"),
  };
  const worker = startWorker(workerSettings, {
    port: workerPort,
    realtimeUrl,
    place: { dir, persistTo: join(dir, "worker-state"), watch: false },
    config: billedConfig(dir),
  });
  owned.services.push(worker);
  const againstWorker = against
    ? startWorker(workerSettings, {
        port: againstPort,
        realtimeUrl,
        place: { dir: join(dir, "against"), persistTo: join(dir, "against-state"), watch: false },
        config: billedConfig(dir, against),
      })
    : undefined;
  if (againstWorker) owned.services.push(againstWorker);
  const floor = startWranglerDev({
    name: "floor",
    config: fileURLToPath(new URL("./wrangler.toml", import.meta.url)),
    port: floorPort,
    // Where the I/O floor sends its statements: the same SQL endpoint as the Worker's.
    settings: {
      SQL_ENDPOINT: `127.0.0.1:${endpointPort}`,
      DATABASE_URL: databaseUrl,
      REALTIME_URL: `http://127.0.0.1:${realtimePort}`,
      REALTIME_SECRET: realtimeSecret,
    },
    envFile: "floor.env",
    place: { dir, persistTo: join(dir, "floor-state"), watch: false },
  });
  owned.services.push(floor);
  const realtime = startRealtime(
    { realtimeSecret },
    { port: realtimePort, apiUrl: urls.worker, place: { dir, persistTo: join(dir, "realtime-state") } },
  );
  owned.services.push(realtime);
  await Promise.all([
    waitFor(worker, `${urls.worker}/v1`),
    waitFor(floor, `${urls.floor}/`),
    waitFor(realtime, `${realtimeUrl}/health`),
    ...(againstWorker ? [waitFor(againstWorker, `${urls.against}/v1`)] : []),
  ]);
  const services: Services = {
    worker,
    floor,
    realtime,
    endpoint,
    workerPort,
    floorPort,
    against: againstWorker ? { worker: againstWorker, port: againstPort } : undefined,
  };
  return { services, db, urls };
}

/**
 * The project's wrangler.toml without its [assets] table, written into `dir`: the Worker as a
 * deployment pays for it. Locally the asset router runs in the Worker's own workerd before every
 * request (0.4 to 0.9 ms of CPU a call here, bench/results/README.md "CPU per call"); on Cloudflare it
 * is the platform's, and requests to assets are not billed. The floor has no assets either.
 */
function billedConfig(dir: string, root = PROJECT_ROOT): string {
  const text = readFileSync(join(root, "wrangler.toml"), "utf8");
  const start = text.search(/^\[assets\]/m);
  if (start === -1) throw new Error("cpu: wrangler.toml has no [assets] table to leave out");
  const rest = text.slice(start + "[assets]".length);
  const next = rest.search(/^\[/m);
  const billed = (text.slice(0, start) + (next === -1 ? "" : rest.slice(next))).replace(
    /^main = "(.+)"$/m,
    (_, main: string) => `main = ${JSON.stringify(join(root, main))}`,
  );
  const file = join(dir, root === PROJECT_ROOT ? "wrangler.billed.toml" : "wrangler.against.toml");
  writeFileSync(file, billed);
  return file;
}

/** host:port of a postgres:// URL's server. */
function serverAddress(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname || "localhost"}:${url.port || 5432}`;
}

async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await reserveFreePort());
  return [...ports];
}

async function waitFor(service: ServiceProcess, url: string): Promise<void> {
  try {
    await waitForHttp(url, { timeoutMs: START_TIMEOUT_MS, abandon: service.exited });
  } catch (error) {
    throw new Error(`cpu: ${service.name} did not start: ${(error as Error).message}\n${service.keptOutput()}`, { cause: error });
  }
}

/** wrangler dev's workerd that owns the port (`--socket-addr=entry=127.0.0.1:<port>`) is its proxy. */
export const ownsPort = (pid: number, port: number) =>
  commandLine(pid).includes(`entry=127.0.0.1:${port} `) || commandLine(pid).endsWith(`entry=127.0.0.1:${port}`);

/**
 * Each process group's processes and their CPU time (cpu-clock.ts), now: the first three columns
 * from the wrangler serving `target`; Postgres from the backends given, or the SQL endpoint's
 * process (PGlite).
 */
export async function snapshot(s: Services, target: Target, postgres: number[] | "endpoint"): Promise<Record<Group, CpuTimes>> {
  const all = readAllProcesses();
  const members = mapGroups(() => [] as number[]);
  const [wrangler, port] =
    target === "worker" ? [s.worker, s.workerPort] : target === "against" ? [s.against!.worker, s.against!.port] : [s.floor, s.floorPort];
  for (const p of processTree(wrangler.pid!, all)) {
    const group: Group = p.name !== "workerd" ? "wrangler" : ownsPort(p.pid, port) ? "proxy" : "workerd";
    members[group].push(p.pid);
  }
  for (const p of processTree(s.realtime.pid!, all)) members[p.name === "workerd" ? "roomWorkerd" : "partykit"].push(p.pid);
  for (const p of processTree(s.endpoint.pid!, all)) members.endpoint.push(p.pid);
  if (postgres !== "endpoint") members.postgres.push(...postgres);
  // One reading of every process, so the groups are read at the same moment.
  const times = await cpuTimes(Object.values(members).flat());
  const groups = mapGroups((g) => new Map(members[g].flatMap((pid) => (times.has(pid) ? [[pid, times.get(pid)!] as const] : []))));
  if (postgres === "endpoint") groups.postgres = groups.endpoint;
  return groups;
}

/** The processes of each service, as found once they answer. */
export function describeProcesses(s: Services): Record<string, { pid: number; name: string; command: string }[]> {
  const all = readAllProcesses();
  const list = (root: number) =>
    processTree(root, all).map((p) => ({ pid: p.pid, name: p.name, command: commandLine(p.pid).slice(0, 200) }));
  return {
    worker: list(s.worker.pid!),
    floor: list(s.floor.pid!),
    realtime: list(s.realtime.pid!),
    endpoint: list(s.endpoint.pid!),
    ...(s.against ? { against: list(s.against.worker.pid!) } : {}),
  };
}

/** Postgres backends serving the SQL endpoint's connections. */
export async function backendPids(db: Database): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>(
    "select pid from pg_stat_activity where application_name = $1 and datname = current_database() and backend_type = 'client backend'",
    [APPLICATION_NAME],
  );
  return rows.map((r) => Number(r.pid));
}
