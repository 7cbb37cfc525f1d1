import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSuccess, workerUrl } from "../helpers/api.ts";
import { asPerson, memberOf, signUp, type Person } from "../helpers/people.ts";
import { launchBrowser, openPage, UI_TIMEOUT_MS } from "./browser.ts";

// Settings -> Audit log in a real browser (Debian's Chromium): an owner sees who did what and
// from where, and narrows it with the filters; a member is told it is for owners and admins.

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function openSettings(person: Person): Promise<Page> {
  const page = await openPage(browser, { as: person });
  await page.goto(`${workerUrl()}/settings.html#audit-log`);
  await page.getByRole("heading", { name: "Audit log", level: 2 }).waitFor();
  return page;
}

describe("Settings -> Audit log", { timeout: 60_000 }, () => {
  it("an owner sees each entry with who, what and from where, and filters by action", async () => {
    const owner = await signUp({ name: "Katherine Johnson" });
    const key = expectSuccess(
      await asPerson(owner.cookie, "/v1/settings/api-keys", { body: { name: "Flight data", scopes: ["tasks.read"] } }),
      201,
    ).data;
    const page = await openSettings(owner);
    const table = page.getByRole("table", { name: "Audit log" });
    const keyRow = table.getByRole("row").filter({ hasText: "api_key.created" });
    await keyRow.waitFor({ timeout: UI_TIMEOUT_MS });
    await expect.poll(() => keyRow.textContent()).toContain("Flight data (api_key)");
    expect(await keyRow.textContent()).toContain("Katherine Johnson (user)");
    expect(await keyRow.textContent()).toContain("scopes: – → tasks.read");
    const signedUp = table.getByRole("row").filter({ hasText: "user.signed_up" });
    expect(await signedUp.count()).toBe(1);

    await page.getByLabel("Action").selectOption("user.signed_up");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => table.getByRole("row").filter({ hasText: "api_key.created" }).count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
    expect(await table.getByRole("row").filter({ hasText: "user.signed_up" }).count()).toBe(1);

    await page.getByLabel("Action").selectOption("");
    await page.getByLabel("Target id").fill(key.id);
    await page.getByRole("button", { name: "Filter" }).click();
    // Only the key's entry is left (the previous filter showed one row too: wait for the right one).
    await expect.poll(() => table.locator("tbody").textContent(), { timeout: UI_TIMEOUT_MS }).toContain("api_key.created");
    expect(await table.locator("tbody tr").count()).toBe(1);
  });

  it("a member is told the audit log is for owners and admins, and given no table", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const page = await openSettings(member);
    await page.getByText("The audit log is for owners and admins.").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByRole("table", { name: "Audit log" }).count()).toBe(0);
  });
});
