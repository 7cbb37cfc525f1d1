import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { expect } from "vitest";

// axe-core in the page (evaluated through the DevTools protocol, which the console's CSP does not
// govern), run over the whole document: every violation is listed by rule and element.

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

/** No axe-core violation on the page as it stands (an open form included). */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(`${AXE_SOURCE};0`);
  const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as AxeResult;
  const found = result.violations.map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`);
  expect(found, `axe-core on ${what}`).toEqual([]);
}
