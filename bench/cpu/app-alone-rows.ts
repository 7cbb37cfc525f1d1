import { spawn } from "node:child_process";
import { join } from "node:path";
import type { Progress } from "../lib/progress.ts";
import { int, type Row } from "../lib/table.ts";
import type { Plan } from "../sections/context.ts";
import type { AppAlone } from "./calls.ts";
import { PROJECT_ROOT } from "./processes.ts";

// The last part of section 8 (bench/sections/cpu.ts): the app alone (bench/app-alone.ts), run in a
// Node process of its own, since it replaces the global fetch to replay recorded answers, which
// must not touch this process's own calls; its figures become rows of the bench's table.

async function runAppAlone(plan: Plan, root: string): Promise<AppAlone> {
  const args = ["--import", "tsx", join(root, "bench/app-alone.ts"), "--json", ...(plan.quick ? ["--calls=500", "--rounds=3"] : [])];
  // A database of its own on DATABASE_URL's server (or PGlite without it), as the bench's.
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"], cwd: root });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const line = output.split("\n").find((l) => l.startsWith("APP_ALONE "));
  if (code !== 0 || !line) throw new Error(`bench/app-alone.ts ended with ${code}: ${output.slice(-500)}`);
  return JSON.parse(line.slice("APP_ALONE ".length)) as AppAlone;
}

/** The app alone of this checkout, or (`root`) of the --against one, its rows marked so. */
export async function measureAppAlone(plan: Plan, progress: Progress, rows: Row[], root?: string): Promise<AppAlone> {
  const mark = root ? " [against]" : "";
  progress.step(
    root
      ? `cpu: the app alone of the --against checkout (${root})`
      : "cpu: the app alone (bench/app-alone.ts), its fetch in Node against recorded answers",
  );
  const alone = await runAppAlone(plan, root ?? PROJECT_ROOT);
  for (const r of alone.rows) {
    rows.push({
      section: "8 CPU",
      name: `app alone: ${r.call}${mark}`,
      load: `1 at a time, ${alone.rounds} × ${alone.calls}`,
      note: `${int(r.median)} µs of CPU a call (median; min ${int(r.min)})${r.target && !root ? `, target ≤ ${r.target} µs` : ""}; Node ${alone.node}`,
    });
  }
  progress.done(alone.rows.map((r) => `${r.call} ${int(r.median)} µs`).join(", "));
  return alone;
}
