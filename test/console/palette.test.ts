import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { signUp } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { expectAccessible } from "./axe.ts";
import { UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { call, form, openLiveConsole } from "./records-helpers.ts";

// The command palette (Ctrl-K): by keyboard alone, jump to a task of another project, and create a
// person through the form it opens.

useRoom();
const browser = useBrowser();

describe("the command palette", () => {
  it("jumps to a task of another project and creates a person, by keyboard", async () => {
    const owner = await signUp({ name: "Mary Winston", organisationName: "Kent Mills" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const dates = { budget: 0, startDate: "2026-01-05", endDate: "2026-12-30" };
    await call(key, "/v1/projects", { body: { name: "Mill race", status: "active", ...dates } });
    const other = await call(key, "/v1/projects", { body: { name: "Granary roof", status: "planned", ...dates } });
    const person = await call(key, "/v1/personnel", { body: { name: "Eunice Smith", email: "eunice@example.test" } });
    await call(key, "/v1/tasks", {
      body: { title: "Replace the slates", projectId: other.id, assigneeId: person.id, dueDate: "2026-06-01" },
    });
    const page = await openLiveConsole(browser(), owner);
    await page.getByRole("heading", { name: "Tasks · Mill race" }).waitFor();

    // The task's project is not loaded yet: its name finds the project, Enter opens it, then the task.
    await page.keyboard.press("Control+k");
    const palette = form(page, "Go to or create");
    await palette.getByRole("combobox", { name: "Project, task or person" }).fill("granary");
    await expectAccessible(page, "the open palette");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Tasks · Granary roof" }).waitFor();
    await page.keyboard.press("Control+k");
    await palette.getByRole("combobox").fill("slates");
    await expect.poll(() => palette.getByRole("listbox").textContent(), { timeout: 5000 }).toBe("Replace the slates task · Granary roof");
    expect(await palette.getByRole("option", { selected: true }).textContent()).toBe("Replace the slates task · Granary roof");
    await page.keyboard.press("Enter");
    await page.getByRole("dialog", { name: "Replace the slates" }).waitFor();
    await page.keyboard.press("Escape");

    await page.keyboard.press("Control+k");
    await palette.getByRole("combobox").fill("new person");
    await page.keyboard.press("Enter");
    const dialog = form(page, "New person");
    await dialog.getByLabel("Name").fill("Kathryn Peddrew");
    await dialog.getByLabel("Email").fill("kathryn@example.test");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
    expect((await call(key, "/v1/personnel")).map((p: { name: string }) => p.name).sort()).toEqual(["Eunice Smith", "Kathryn Peddrew"]);
    await page.close();
  }, 90_000);
});
