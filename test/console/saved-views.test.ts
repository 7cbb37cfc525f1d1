import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { expectSuccess } from "../helpers/api.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { asPerson, memberOf, signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { expectAccessible } from "./axe.ts";
import { UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { call, openLiveConsole } from "./records-helpers.ts";

// A table's saved views in the console: saved under a name, renamed, shared with the organisation
// and deleted through the page, each change in the API (GET /v1/settings/views) at once; another
// member sees a shared view and gets no controls to change it.

useRoom();
const browser = useBrowser();

const viewsOf = async (person: Person) =>
  expectSuccess(await asPerson(person.cookie, "/v1/settings/views?resource=tasks")).data as Array<{ name: string; shared: boolean }>;

describe("saved views in the console", () => {
  it("saves, renames, shares and deletes a view of the task table", async () => {
    const owner = await signUp({ name: "Dorothy Vaughan", organisationName: "West Computing" });
    const member = await memberOf(owner, "member");
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Fortran class", budget: 0, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" },
    });
    const page = await openLiveConsole(browser(), owner, `/?project=${project.id}&view=tasks&status=todo`);
    const status = page.locator("#table-view .table-count");
    const chooser = page.getByLabel("Saved views");

    await page.getByLabel("Name this view").fill("Open work");
    await page.getByRole("button", { name: "Save view" }).click();
    await expect.poll(() => status.textContent(), { timeout: UI_TIMEOUT_MS }).toBe("Saved “Open work”.");
    expect(await viewsOf(owner)).toMatchObject([{ name: "Open work", shared: false }]);

    await expect.poll(() => chooser.locator("option").allTextContents(), { timeout: UI_TIMEOUT_MS }).toContain("Open work");
    await chooser.selectOption({ label: "Open work" });
    await page.getByLabel("Name this view").fill("To do first");
    await page.getByRole("button", { name: "Rename to the name typed" }).click();
    await expect.poll(() => status.textContent(), { timeout: UI_TIMEOUT_MS }).toBe("Renamed to “To do first”.");
    expect(await viewsOf(owner)).toMatchObject([{ name: "To do first", shared: false }]);

    await page.getByRole("button", { name: "Share with the organisation" }).click();
    await expect.poll(() => status.textContent(), { timeout: UI_TIMEOUT_MS }).toBe("“To do first” is shared with the organisation.");
    expect(await viewsOf(member)).toMatchObject([{ name: "To do first", shared: true }]);
    await expect.poll(() => chooser.locator("option:checked").textContent(), { timeout: UI_TIMEOUT_MS }).toBe("To do first (shared)");
    await expectAccessible(page, "the task table with a saved view chosen");

    // The member sees the shared view, by its owner, and nothing to change it with.
    const theirs = await openLiveConsole(browser(), member, `/?project=${project.id}&view=tasks`);
    const theirChooser = theirs.getByLabel("Saved views");
    await expect
      .poll(() => theirChooser.locator("option").allTextContents(), { timeout: UI_TIMEOUT_MS })
      .toContain("To do first (shared), by Dorothy Vaughan");
    await theirChooser.selectOption({ label: "To do first (shared), by Dorothy Vaughan" });
    expect(await theirs.getByRole("button", { name: "Delete view" }).count()).toBe(0);
    await theirs.close();

    await page.getByRole("button", { name: "Delete view" }).click();
    await expect.poll(() => status.textContent(), { timeout: UI_TIMEOUT_MS }).toBe("Deleted “To do first”.");
    expect(await viewsOf(owner)).toEqual([]);
    await page.close();
  }, 120_000);
});
