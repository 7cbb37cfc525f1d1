import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { chromium } from "playwright-core";
import { DEMO_FILE } from "../../cli/lib/paths.ts";
import { CHROMIUM } from "./browser.ts";

// Takes docs/console.png, the README's picture of the console: the demo company's board after two
// moves made in another window. Run it against the first run of `npm run dev` (an empty database,
// so the demo is seeded as the README's tour finds it), which it signs in to as the demo owner:
//
//   npm run dev                                          # in one terminal
//   node --import tsx test/console/readme-screenshot.ts  # in another
//
// The moves change the demo's data: to start again, stop dev and remove .data/.

const ORIGIN = process.env.CONSOLE_URL ?? "http://127.0.0.1:8787";
const OUTPUT = fileURLToPath(new URL("../../docs/console.png", import.meta.url));
const TIMEOUT_MS = 30_000;

/** Two moves, made in the other window: a task done (which unblocks the one waiting for it) and one started. */
const MOVES = [
  ["Run new lighting circuits, north side", "Done"],
  ["Kitchen plumbing first fix", "In progress"],
] as const;

async function signedIn(browser: Browser, owner: { email: string; password: string }): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 860 } });
  page.setDefaultTimeout(TIMEOUT_MS);
  await page.goto(`${ORIGIN}/sign-in.html`);
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${ORIGIN}/`);
  await page.getByText(/^Live/).waitFor();
  await page.locator(".card").first().waitFor();
  return page;
}

async function main(): Promise<void> {
  const demo = Object.values(
    JSON.parse(readFileSync(DEMO_FILE, "utf8")) as Record<string, { owner?: { email: string; password: string } }>,
  ).find((entry) => entry.owner);
  if (!demo?.owner) throw new Error(`no demo owner in ${DEMO_FILE}: start npm run dev on an empty database first`);
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const shown = await signedIn(browser, demo.owner);
    const other = await signedIn(browser, demo.owner);
    for (const [title, to] of MOVES) {
      await other.getByRole("button", { name: `Move “${title}” to ${to}` }).click();
      const status = to === "Done" ? "done" : "in_progress";
      await shown.locator(`.column[data-status="${status}"] .card`, { hasText: title }).waitFor();
    }
    await shown
      .locator("#event-list li")
      .nth(MOVES.length - 1)
      .waitFor();
    await shown.mouse.move(0, 0);
    await shown.waitForTimeout(1500); // the moved cards' highlight fades
    await shown.screenshot({ path: OUTPUT });
    console.log(`wrote ${OUTPUT}`);
  } finally {
    await browser.close();
  }
}

await main();
