import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, onTestFailed } from "vitest";
import { testClientAddress, workerUrl } from "../helpers/api.ts";
import type { Person } from "../helpers/people.ts";

// The console's pages in Debian's Chromium, driven by playwright-core against the harness's
// Worker. Each page gets a browser context of its own (its own cookies), claiming the test's own
// client address (CF-Connecting-IP, as test/helpers/api.ts does), so failed sign-ins in one test
// never count against another's.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Generous: the machine has 2 cores shared by the Worker, the room, Postgres and Chromium. */
export const UI_TIMEOUT_MS = 30_000;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM });
}

/** Chromium for a file's tests: launched before them, closed after; the getter answers it. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

export interface PageOptions {
  /** Signed in as this person: their session cookie is set before the first request. */
  as?: Person;
  viewport?: { width: number; height: number };
  /** Let the page use the clipboard (the Copy buttons), and the test read it. */
  clipboard?: boolean;
}

/** A page in a fresh browser context (its own cookies), on the Worker's origin. */
export async function openPage(browser: Browser, options: PageOptions = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1440, height: 900 },
    extraHTTPHeaders: { "cf-connecting-ip": testClientAddress() },
  });
  if (options.clipboard) await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: workerUrl() });
  if (options.as) await context.addCookies(cookiesOf(options.as, workerUrl()));
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  page.on("pageerror", (error) => console.error(`console page error: ${error.message}`));
  traceOnFailure(page);
  // A page closed by the browser closing (afterAll) finds its context gone already: not an error.
  page.on("close", () => void context.close().catch(() => {}));
  return page;
}

/** The page's last requests and navigations, printed when its test fails: where a stalled page stood. */
function traceOnFailure(page: Page): void {
  const trace: string[] = [];
  const note = (line: string) => {
    trace.push(`${new Date().toISOString()} ${line}`);
    if (trace.length > 40) trace.shift();
  };
  page.on("request", (r) => note(`-> ${r.method()} ${r.url()}`));
  page.on("requestfinished", (r) => note(`<- ${r.method()} ${r.url()}`));
  page.on("requestfailed", (r) => note(`xx ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) note(`at ${frame.url()}`);
  });
  page.on("close", () => note("closed"));
  onTestFailed(() => console.error(`the page's last requests (${page.url()}):\n${trace.join("\n")}`));
}

/** The person's session cookie (from their Cookie header) as Playwright sets it. */
function cookiesOf(person: Person, url: string): Parameters<BrowserContext["addCookies"]>[0] {
  return person.cookie.split("; ").map((pair) => {
    const at = pair.indexOf("=");
    return { name: pair.slice(0, at), value: pair.slice(at + 1), url };
  });
}

/** Signs in through sign-in.html, as a person would, and waits for the board. */
export async function signInThroughPage(page: Page, person: { email: string; password: string }): Promise<void> {
  await page.goto(`${workerUrl()}/sign-in.html`);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${workerUrl()}/`);
}

/** Polls a locator's text until it matches (the page fills it in after its calls answer). */
export const expectText = (read: () => Promise<string | null>, text: RegExp | string) =>
  expect.poll(read, { timeout: UI_TIMEOUT_MS }).toMatch(text);
