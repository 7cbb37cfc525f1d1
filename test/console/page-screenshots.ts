import { mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Page } from "playwright-core";
import { DEMO_FILE } from "../../cli/lib/paths.ts";
import { CHROMIUM } from "./browser.ts";

// Takes docs/screenshots/<page>.png, a picture of each page of the console (docs/console.md shows
// them): the demo company as the first run of `npm run dev` seeds it, signed in as the demo owner.
// Not a test, and it changes nothing: run it against the dev stack.
//
//   npm run dev                                            # in one terminal
//   node --import tsx test/console/page-screenshots.ts     # in another

const ORIGIN = process.env.CONSOLE_URL ?? "http://127.0.0.1:8787";
const OUTPUT = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const TIMEOUT_MS = 30_000;

const rows = (p: Page) => p.locator("#table-view tbody tr").first().waitFor();
const chart = (p: Page) => p.locator(".ov-chart").first().waitFor();

/** Each picture: its file name, the address, and what shows it is drawn. */
const PAGES: Array<{ name: string; path: string; ready: (page: Page) => Promise<unknown> }> = [
  { name: "board", path: "/", ready: (p) => p.locator(".card").first().waitFor() },
  { name: "task-table", path: "/?view=tasks", ready: rows },
  { name: "my-work", path: "/?view=mine", ready: (p) => p.locator("#table-view table, #table-view .notice").first().waitFor() },
  { name: "timeline", path: "/?view=timeline", ready: (p) => p.locator("#table-view svg").first().waitFor() },
  { name: "overview", path: "/?view=overview", ready: chart },
  { name: "all-projects", path: "/?view=portfolio", ready: chart },
  { name: "risks", path: "/?view=risks", ready: rows },
  { name: "money", path: "/?view=money", ready: rows },
  { name: "people", path: "/?view=people", ready: rows },
  { name: "settings", path: "/settings.html", ready: (p) => p.locator("main h2").first().waitFor() },
];

async function main(): Promise<void> {
  const demo = Object.values(
    JSON.parse(readFileSync(DEMO_FILE, "utf8")) as Record<string, { owner?: { email: string; password: string } }>,
  ).find((entry) => entry.owner);
  if (!demo?.owner) throw new Error(`no demo owner in ${DEMO_FILE}: start npm run dev on an empty database first`);
  mkdirSync(OUTPUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(TIMEOUT_MS);
    await page.goto(`${ORIGIN}/sign-in.html`);
    await page.screenshot({ path: `${OUTPUT}sign-in.png` });
    await page.getByLabel("Email").fill(demo.owner.email);
    await page.getByLabel("Password").fill(demo.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${ORIGIN}/`);
    for (const { name, path, ready } of PAGES) {
      await page.goto(`${ORIGIN}${path}`);
      await ready(page);
      await page.mouse.move(0, 0);
      await page.waitForTimeout(800); // charts and counts settle
      await page.screenshot({ path: `${OUTPUT}${name}.png` });
      console.log(`wrote docs/screenshots/${name}.png`);
    }
  } finally {
    await browser.close();
  }
}

await main();
