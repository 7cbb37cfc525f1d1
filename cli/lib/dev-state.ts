import { readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { DATA_DIR, DEV_STATE_FILE } from "./paths.ts";
import { isPortAnswering, isProcessAlive } from "./processes.ts";

/** What a running `npm run dev` tells other local tools (.data/dev.json). */
export interface DevState {
  pid: number;
  startedAt: string;
  /** Set when dev serves the embedded database; null when it uses DATABASE_URL (never written here: it may hold a password). */
  embeddedPostgres: { url: string; port: number } | null;
  sqlEndpoint: string;
  workerUrl: string;
  realtimeUrl: string;
  /** Process (and process group) ids of the Worker and realtime servers, by name. */
  services: Record<string, number>;
}

export function writeDevState(state: DevState): void {
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(DEV_STATE_FILE, JSON.stringify(state, null, 2) + "\n");
}

export function removeDevState(): void {
  if (readDevStateFile()?.pid === process.pid) rmSync(DEV_STATE_FILE, { force: true });
}

/** The state of a dev server that is really running: its process is alive and its database port answers. */
export async function findRunningDevServer(): Promise<DevState | undefined> {
  const state = readDevStateFile();
  if (!state || !isProcessAlive(state.pid)) return undefined;
  if (state.embeddedPostgres && !(await isPortAnswering(state.embeddedPostgres.port))) return undefined;
  return state;
}

/**
 * Services a dev session left running because it was killed without a chance to stop them
 * (kill -9): they hold the ports, and the next session says which processes to stop.
 */
export function findLeftoverServices(): { devPid: number; services: Record<string, number> } | undefined {
  const state = readDevStateFile();
  if (!state?.services || isProcessAlive(state.pid)) return undefined;
  const alive = Object.entries(state.services).filter(([, pid]) => isProcessAlive(pid));
  return alive.length > 0 ? { devPid: state.pid, services: Object.fromEntries(alive) } : undefined;
}

function readDevStateFile(): DevState | undefined {
  try {
    return JSON.parse(readFileSync(DEV_STATE_FILE, "utf8")) as DevState;
  } catch {
    return undefined;
  }
}
