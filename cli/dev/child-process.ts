import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { PROJECT_ROOT } from "../lib/paths.ts";
import { dim } from "../lib/style.ts";

const STOP_GRACE_MS = 5000;
const KEPT_LINES = 200;
// Cursor movement and line erasing (progress redraws) would wipe other services' lines; colours stay.
// eslint-disable-next-line no-control-regex -- ANSI escape sequences start with ESC (\x1b) by definition
const CURSOR_CONTROL = /\x1b\[[0-9;?]*[A-HJKSTfhl]/g;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

export interface ServiceProcess {
  name: string;
  /** Also the id of its process group; undefined when it could not be started. */
  pid: number | undefined;
  /** Settles when the process has exited, however it ended. */
  exited: Promise<Exit>;
  /** Print its output live from now on; until then it is kept, to be shown if start-up fails. */
  streamOutput(): void;
  keptOutput(): string;
  /** SIGTERM to the process and everything it started, SIGKILL after a grace period. */
  stop(): Promise<void>;
  /** Last resort when this process is exiting anyway: SIGKILL, synchronously. */
  killNow(): void;
}

/**
 * Runs a development server as a child in its own process group: Ctrl-C in the terminal reaches
 * only this process, which then stops the children in order, and a stop signal sent to the group
 * also reaches what the child started itself (workerd, esbuild).
 */
export function startService(options: { name: string; command: string; args: string[]; env?: Record<string, string> }): ServiceProcess {
  const child = spawn(options.command, options.args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const kept: string[] = [];
  let streaming = false;
  const label = dim(`${options.name.padEnd(8)} │ `);
  const onLine = (line: string) => {
    const clean = line.replace(CURSOR_CONTROL, "");
    if (clean.trim() === "") return;
    if (streaming) process.stdout.write(label + clean + "\n");
    else if (kept.push(clean) > KEPT_LINES) kept.shift();
  };
  createInterface({ input: child.stdout }).on("line", onLine);
  createInterface({ input: child.stderr }).on("line", onLine);

  const exited = new Promise<Exit>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // ESRCH: the whole group is gone already.
    }
  };

  return {
    name: options.name,
    pid: child.pid,
    exited,
    streamOutput: () => {
      streaming = true;
      kept.length = 0;
    },
    keptOutput: () => kept.join("\n"),
    async stop() {
      if (!hasExited) {
        signalGroup("SIGTERM");
        await Promise.race([exited, sleep(STOP_GRACE_MS)]);
      }
      // Also after a clean exit of the leader: nothing it started may outlive it.
      signalGroup("SIGKILL");
      await exited;
    },
    killNow: () => signalGroup("SIGKILL"),
  };
}
