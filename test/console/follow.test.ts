import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { expectSuccess } from "../helpers/api.ts";
import { asPerson, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { team } from "../notifications/helpers.ts";
import { expectAccessible } from "./axe.ts";
import { UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { form, openLiveConsole } from "./records-helpers.ts";

// A project's and a risk's Follow toggles (components/follow-toggle.js, docs/console.md "Inbox"):
// beside the shown project's heading (record-actions.js) and in a risk's dialog (record-form.js),
// as in the task drawer (inbox.test.ts). Each says what GET .../subscription says, follows (PUT)
// and unfollows (DELETE) by mouse or keyboard, and passes axe while shown. A member follows a
// project they may only read.

useRoom();
const browser = useBrowser();

const subscription = async (person: Person, path: string) =>
  expectSuccess(await asPerson(person.cookie, `${path}/subscription`)).data as { following: boolean; reason: string | null };

/** Clicks `toggle` ("Follow"), then its "Following": each time the page and the API agree. */
async function followAndUnfollow(within: Locator, person: Person, path: string, press: (button: Locator) => Promise<void>) {
  const follow = within.getByRole("button", { name: "Follow", exact: true });
  const following = within.getByRole("button", { name: "Following", exact: true });
  expect(await follow.getAttribute("aria-pressed")).toBe("false");
  expect(await subscription(person, path)).toMatchObject({ following: false, reason: null });
  await press(follow);
  await following.waitFor({ timeout: UI_TIMEOUT_MS });
  expect(await following.getAttribute("aria-pressed")).toBe("true");
  expect(await subscription(person, path)).toMatchObject({ following: true, reason: "manual" });
  await press(following);
  await follow.waitFor({ timeout: UI_TIMEOUT_MS });
  expect(await follow.getAttribute("aria-pressed")).toBe("false");
  expect(await subscription(person, path)).toMatchObject({ following: false });
}

const outline = (page: Page) => page.evaluate("getComputedStyle(document.activeElement).outlineStyle");

describe("the console's Follow toggles of a project and a risk", () => {
  it("follow and unfollow a project beside its heading and a risk in its dialog, as the API says", async () => {
    const { owner, member } = await team();
    const body = { name: "Harbour wall", budget: 0, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" };
    const project = expectSuccess(await asPerson(owner.cookie, "/v1/projects", { body }), 201).data as { id: string };
    const risk = expectSuccess(
      await asPerson(owner.cookie, "/v1/risks", { body: { projectId: project.id, title: "Storm surge in March" } }),
      201,
    ).data as { id: string };
    const page = await openLiveConsole(browser(), member, `/?project=${project.id}`);

    // The project's: a member reads projects (no Edit project) and follows this one by mouse.
    const head = page.locator(".board-head");
    await head.getByRole("button", { name: "Follow", exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await head.getByRole("button", { name: "Edit project" }).count()).toBe(0);
    await expectAccessible(page, "the project's heading with its Follow toggle");
    await followAndUnfollow(head, member, `/v1/projects/${project.id}`, (button) => button.click());
    // Followed again, a reload reads it anew from the API.
    await head.getByRole("button", { name: "Follow", exact: true }).click();
    await head.getByRole("button", { name: "Following", exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.reload();
    await head.getByRole("button", { name: "Following", exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });

    // The risk's, in its dialog, by keyboard: Shift+Tab from the first field reaches it, with the visible focus ring.
    await page.getByRole("navigation", { name: "Views" }).getByRole("button", { name: "Risks" }).click();
    await page.getByRole("button", { name: "New risk" }).click();
    const blank = form(page, "New risk");
    await blank.waitFor();
    expect(await blank.getByRole("button", { name: /^Follow/ }).count()).toBe(0);
    await blank.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("button", { name: "Storm surge in March" }).click();
    const dialog = form(page, "Edit risk “Storm surge in March”");
    await dialog.getByRole("button", { name: "Follow", exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    await expectAccessible(page, "a risk's dialog with its Follow toggle");
    await followAndUnfollow(dialog, member, `/v1/risks/${risk.id}`, async (button) => {
      await dialog.locator("input, select, textarea").first().focus();
      await page.keyboard.press("Shift+Tab");
      expect(await page.evaluate("document.activeElement.textContent")).toBe(await button.textContent());
      expect(await outline(page)).toBe("solid");
      await page.keyboard.press("Space");
    });
    // The risk's toggle left the project's alone.
    expect(await subscription(member, `/v1/projects/${project.id}`)).toMatchObject({ following: true, reason: "manual" });
    await page.close();
  }, 120_000);

  it("hides the project's toggle once no project is shown: the one shown was deleted", async () => {
    const { owner } = await team();
    const body = { name: "Quay cranes", budget: 0, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" };
    const project = expectSuccess(await asPerson(owner.cookie, "/v1/projects", { body }), 201).data as { id: string; version: number };
    const page = await openLiveConsole(browser(), owner, `/?project=${project.id}`);
    // Following or not (its creator may follow it by then): shown either way.
    const toggle = page.locator(".board-head").getByRole("button", { name: /^Follow(ing)?$/ });
    await toggle.waitFor({ timeout: UI_TIMEOUT_MS });
    const deleted = await asPerson(owner.cookie, `/v1/projects/${project.id}`, {
      method: "DELETE",
      headers: { "if-match": `"${project.version}"` },
    });
    expect(deleted.status, deleted.text).toBe(200);
    await page.getByText("No projects yet: create the first").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator("#project-follow").isHidden()).toBe(true);
    await page.close();
  }, 120_000);
});
