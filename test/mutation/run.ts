import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// `npm run mutation [group...]`: runs each group's Stryker config (test/mutation/<group>.config.mjs)
// in turn, then prints the score of every mutated module from the groups' JSON reports
// (reports/mutation/<group>.json; an HTML report sits beside each). Not part of CI: it takes the
// better part of an hour on 2 cores. See docs/mutation.md.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GROUPS = ["unit", "internal", "auth", "idempotency", "identity"];
/** The score each module must reach (docs/mutation.md). */
const TARGET = 90;

const asked = process.argv.slice(2);
const unknown = asked.filter((group) => !GROUPS.includes(group));
if (unknown.length > 0) {
  console.error(`unknown group(s): ${unknown.join(", ")}; the groups are ${GROUPS.join(", ")}`);
  process.exit(2);
}
const groups = asked.length > 0 ? asked : GROUPS;

// Offline machines: no request.cf download, no telemetry (the stack groups start wrangler and partykit).
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
const started = Date.now();
const failedRuns: string[] = [];
for (const group of groups) {
  console.log(`\n==== mutation: ${group} ====`);
  const groupStarted = Date.now();
  const run = spawnSync("npx", ["stryker", "run", `test/mutation/${group}.config.mjs`], { cwd: ROOT, env, stdio: "inherit" });
  console.log(`(${group}: exit ${run.status}, ${minutes(Date.now() - groupStarted)})`);
  if (run.status !== 0) failedRuns.push(group);
}

interface Counts {
  group: string;
  mutants: number;
  killed: number;
  survived: number;
  timeout: number;
  noCoverage: number;
  other: number;
}

const rows: Array<[string, Counts]> = [];
for (const group of groups) {
  const report = join(ROOT, "reports", "mutation", `${group}.json`);
  if (!existsSync(report)) continue;
  const { files } = JSON.parse(readFileSync(report, "utf8")) as { files: Record<string, { mutants: Array<{ status: string }> }> };
  for (const [file, { mutants }] of Object.entries(files)) {
    const count = (status: string) => mutants.filter((m) => m.status === status).length;
    const counts = {
      group,
      killed: count("Killed"),
      survived: count("Survived"),
      timeout: count("Timeout"),
      noCoverage: count("NoCoverage"),
      other: 0,
      mutants: 0,
    };
    counts.mutants = counts.killed + counts.survived + counts.timeout + counts.noCoverage;
    counts.other = mutants.length - counts.mutants - count("Ignored");
    rows.push([file, counts]);
  }
}

const score = (c: Counts) => (c.mutants === 0 ? 100 : (100 * (c.killed + c.timeout)) / c.mutants);
console.log(`\n==== mutation score per module (${minutes(Date.now() - started)}) ====`);
console.log(["module".padEnd(36), "group".padEnd(12), "mutants", "killed", "survived", "timeout", "no cov", "score"].join("  "));
for (const [file, c] of rows.sort(([a], [b]) => a.localeCompare(b))) {
  const cells = [c.mutants, c.killed, c.survived, c.timeout, c.noCoverage].map((n, i) => String(n).padStart([7, 6, 8, 7, 6][i]!));
  const mark = score(c) >= TARGET ? "" : `  below ${TARGET} %`;
  console.log(
    [file.padEnd(36), c.group.padEnd(12), ...cells, `${score(c).toFixed(2).padStart(6)} %`].join("  ") +
      (c.other ? `  (${c.other} errors)` : "") +
      mark,
  );
}
const below = rows.filter(([, c]) => score(c) < TARGET);
if (failedRuns.length > 0) console.error(`\nStryker failed for: ${failedRuns.join(", ")}`);
if (below.length > 0) console.error(`\n${below.length} module(s) below ${TARGET} %`);
process.exit(failedRuns.length > 0 || below.length > 0 ? 1 : 0);

function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
