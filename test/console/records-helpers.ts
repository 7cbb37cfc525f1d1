import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { api, workerUrl } from "../helpers/api.ts";
import type { Person } from "../helpers/people.ts";
import { openPage, UI_TIMEOUT_MS } from "./browser.ts";

// What the tests of the console's records share (records.test.ts, palette.test.ts).

/** The console, signed in as `person`, once it is live. */
export async function openLiveConsole(browser: Browser, person: Person, path = "/"): Promise<Page> {
  const page = await openPage(browser, { as: person });
  await page.goto(`${workerUrl()}${path}`);
  await expect.poll(() => page.locator("#connection-text").textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/^Live/);
  return page;
}

/** A call with a key of the organisation, which must succeed; answers its data. */
export async function call(key: string, path: string, options: { method?: "GET" | "POST" | "PATCH"; body?: unknown } = {}) {
  const response = await api(path, { key, method: options.method ?? (options.body === undefined ? "GET" : "POST"), body: options.body });
  expect(response.status, response.text).toBeLessThan(300);
  return response.body.data;
}

/** A record form (or any dialog) by its heading. */
export const form = (page: Page, name: string | RegExp) => page.getByRole("dialog", { name });
