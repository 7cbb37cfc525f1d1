import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { LoadResult } from "./load.ts";

// The bench's one table: every section adds its rows; the report prints it and writes it to
// bench/results/ as Markdown and JSON, with the query plans the growth section relies on.

export interface Row {
  section: string;
  name: string;
  load: string;
  rps?: number;
  p50?: number;
  p99?: number;
  note?: string;
}

export const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "" : v < 10 ? v.toFixed(2) : v.toFixed(1));
export const int = (v: number | undefined) => (v === undefined ? "" : Math.round(v).toLocaleString("en-US"));
export const pct = (a: number, b: number) => `${Math.round((a / b) * 100)}%`;

/** A load run's numbers for a row, with a note when it failed or was too short to trust. */
export function numbers(r: LoadResult) {
  const notes = [r.failures ? `${r.failures} failed` : "", r.requests < 100 ? `only ${r.requests} requests` : ""].filter(Boolean);
  return { rps: r.rps, p50: r.p50, p99: r.p99, ...(notes.length ? { note: notes.join(", ") } : {}) };
}

/** A load run on one line, for the progress display. */
export function summary(r: LoadResult): string {
  return `${int(r.rps)} req/s, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms${r.failures ? `, ${r.failures} FAILED` : ""}`;
}

export interface Plans {
  list: string;
  deepPage: string;
  sync: string;
  sorted: string;
  search: string;
  expanded: string;
  create: string;
}

export interface Report {
  title: string;
  machineLine: string;
  /** bench/results/<name>.md, .json, .plans.md */
  name: string;
  rows: Row[];
  plans: Plans | null;
  /** Everything else the JSON keeps (the machine, the plan, round trips). */
  extra: Record<string, unknown>;
  largestGrowth: number;
}

const RESULTS = fileURLToPath(new URL("../results", import.meta.url));

export function writeReport(report: Report): void {
  const header = "| section | measurement | load | req/s | p50 ms | p99 ms | notes |";
  const lines = report.rows.map(
    (r) => `| ${r.section} | ${r.name} | ${r.load} | ${int(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.note ?? ""} |`,
  );
  const table = [header, "|---|---|---|--:|--:|--:|---|", ...lines].join("\n");
  const markdown = `# ${report.title}\n\n${report.machineLine}\n\n${table}\n`;
  const plans = report.plans;
  const plansMarkdown =
    plans &&
    `# Query plans at ${report.largestGrowth.toLocaleString("en-US")} tasks (${report.title})\n\n` +
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) of the exact statements the growth calls send.\n\n` +
      `## GET /v1/tasks?projectId=…&status=todo,in_progress&limit=50\n\n\`\`\`\n${plans.list}\n\`\`\`\n\n` +
      `## The same, a page in the middle (cursor)\n\n\`\`\`\n${plans.deepPage}\n\`\`\`\n\n` +
      `## GET /v1/tasks?updatedSince=…&limit=50\n\n\`\`\`\n${plans.sync}\n\`\`\`\n\n` +
      `## GET /v1/tasks?sort=-dueDate&limit=50\n\n\`\`\`\n${plans.sorted}\n\`\`\`\n\n` +
      `## GET /v1/tasks?q=scaffold&limit=50\n\n\`\`\`\n${plans.search}\n\`\`\`\n\n` +
      `## GET /v1/tasks?projectId=…&status=todo,in_progress&expand=assignee,project,milestone&limit=50\n\n\`\`\`\n${plans.expanded}\n\`\`\`\n\n` +
      `## POST /v1/tasks\n\n\`\`\`\n${plans.create}\n\`\`\`\n`;
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(`${RESULTS}/${report.name}.md`, markdown);
  if (plansMarkdown) writeFileSync(`${RESULTS}/${report.name}.plans.md`, plansMarkdown);
  writeFileSync(
    `${RESULTS}/${report.name}.json`,
    JSON.stringify({ title: report.title, ...report.extra, rows: report.rows, plans }, null, 2) + "\n",
  );
  process.stdout.write(
    `\n${markdown}\nwritten: bench/results/${report.name}.md, ${report.name}.json${plansMarkdown ? `, ${report.name}.plans.md` : ""}\n`,
  );
}
