import { bold, cyan, dim, green, yellow } from "../lib/style.ts";
import type { DemoOutcome } from "./demo-key.ts";
import { WORKER_URL } from "./services.ts";

/** One part of the dev setup and when it became ready (ms since this process started). */
export interface ReadyPart {
  part: string;
  detail: string;
  atMs: number;
  warning?: boolean;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function formatBanner(parts: ReadyPart[], demo: DemoOutcome, totalMs: number): string {
  const partWidth = Math.max(...parts.map((p) => p.part.length));
  const detailWidth = Math.max(...parts.map((p) => p.detail.length));
  const lines = [
    "",
    bold(`opsroom dev is ready in ${seconds(totalMs)}`),
    "",
    ...parts.map(
      (p) =>
        `  ${p.warning ? yellow("!") : green("✓")} ${p.part.padEnd(partWidth)}  ${p.detail.padEnd(detailWidth)}  ${dim(seconds(p.atMs))}`,
    ),
    "",
  ];
  if (demo.demo) {
    lines.push(
      `  Demo API key with every scope, organisation "${demo.demo.orgName}" (kept in .data/demo.json):`,
      `  ${bold(demo.demo.key)}`,
      "",
      `  ${cyan(`curl -H "Authorization: Bearer ${demo.demo.key}" ${WORKER_URL}/v1/tasks`)}`,
      "",
      `  Live console:   ${cyan(`${WORKER_URL}/`)}`,
      ...(demo.demo.owner
        ? [`  Sign in as the demo owner: ${bold(demo.demo.owner.email)}  password ${bold(demo.demo.owner.password)}`]
        : []),
    );
  } else {
    lines.push(
      "  No demo key: this database had organisations before dev first seeded it from this checkout.",
      `  Make one with ${cyan("npx opsroom seed")} or ${cyan("npx opsroom key create --org ID --name APP --scopes tasks.manage")}.`,
    );
  }
  lines.push(`  API reference:  ${cyan(`${WORKER_URL}/docs`)}`);
  lines.push("", dim("  Logs follow. Ctrl-C stops everything."), "");
  return lines.join("\n");
}
