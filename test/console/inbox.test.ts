import { describe, expect, it } from "vitest";
import { expectSuccess, workerUrl } from "../helpers/api.ts";
import { asPerson } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { inbox, nextNotification, personSocket, taskBy, team } from "../notifications/helpers.ts";
import { expectAccessible } from "./axe.ts";
import { openPage, UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { openLiveConsole } from "./records-helpers.ts";

// The console's inbox (components/inbox.js, docs/console.md): the top bar's unread count follows
// the person's realtime socket without a reload, the inbox lists the notification with a link to
// its record, and marking read (one, or all) brings the count down, in the page and in the API; the
// task drawer's Follow toggle follows and unfollows the task (components/follow-toggle.js).

useRoom();
const browser = useBrowser();

describe("the console's inbox", () => {
  it("counts a task assigned by someone else live, lists it, opens it, and marks it read", async () => {
    const { owner, member, memberPersonnelId } = await team();
    const page = await openLiveConsole(browser(), member);
    const badge = page.locator("#inbox-count");
    const count = () => badge.textContent();
    await expect.poll(count, { timeout: UI_TIMEOUT_MS }).toBe("0");
    // Set once in this document: still there after the push means no reload brought the count.
    await page.evaluate("window.sameDocument = true");

    const task = await taskBy(owner, memberPersonnelId);
    await expect.poll(count, { timeout: UI_TIMEOUT_MS }).toBe("1");
    expect(await page.evaluate("window.sameDocument")).toBe(true);
    expect(await page.getByRole("button", { name: "Inbox, 1 unread" }).count()).toBe(1);

    await page.getByRole("button", { name: "Inbox, 1 unread" }).click();
    const dialog = page.getByRole("dialog", { name: "Inbox" });
    const link = dialog.getByRole("link", { name: `Olive Owner assigned you “${task.title}”` });
    await link.waitFor();
    expect(await link.getAttribute("href")).toBe(`/?task=${task.id}`);
    await expectAccessible(page, "the inbox, open with an unread notification");

    await dialog.getByRole("button", { name: "Mark read" }).click();
    await expect.poll(count, { timeout: UI_TIMEOUT_MS }).toBe("0");
    expect(await dialog.getByRole("button", { name: "Mark read" }).count()).toBe(0);
    const listed = await inbox(member);
    expect(listed.unread).toBe(0);
    expect(listed.data).toEqual([expect.objectContaining({ record: expect.objectContaining({ id: task.id }), read: true })]);

    // A second one, marked with "Mark all read"; then the first one's link opens its task's drawer.
    const second = await taskBy(owner, memberPersonnelId);
    await expect.poll(count, { timeout: UI_TIMEOUT_MS }).toBe("1");
    await dialog.getByRole("link", { name: `Olive Owner assigned you “${second.title}”` }).waitFor();
    await dialog.getByRole("button", { name: "Mark all read" }).click();
    await expect.poll(count, { timeout: UI_TIMEOUT_MS }).toBe("0");
    expect((await inbox(member)).unread).toBe(0);
    await link.click();
    await page.getByRole("dialog", { name: task.title }).waitFor();
    await page.close();
  }, 120_000);

  it("keeps the person's notification preferences on the settings page, and says why the API refuses a time zone", async () => {
    const { member } = await team();
    const page = await openPage(browser(), { as: member });
    await page.goto(`${workerUrl()}/settings.html`);
    const section = page.getByRole("region", { name: "Notifications" });
    const mail = (kind: string) => section.getByLabel(`${kind}: mail`);
    await expect.poll(() => mail("A task assigned to you").inputValue(), { timeout: UI_TIMEOUT_MS }).toBe("immediate");
    expect(await mail("Any other change to what you follow").inputValue()).toBe("digest");
    await expectAccessible(page, "the settings page with the notification preferences");

    await mail("Any other change to what you follow").selectOption({ label: "None" });
    await section.getByLabel("A comment on what you follow: in the inbox").uncheck();
    await section.getByLabel("Time zone (for the morning mail)").fill("Mars/Olympus");
    await section.getByRole("button", { name: "Save notification preferences" }).click();
    await expect.poll(() => section.getByRole("alert").textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/time zone/i);
    const unchanged = expectSuccess(await asPerson(member.cookie, "/v1/settings/notifications")).data as any;
    expect(unchanged.preferences.changed.email).toBe("digest");

    await section.getByLabel("Time zone (for the morning mail)").fill("Europe/Berlin");
    await section.getByRole("button", { name: "Save notification preferences" }).click();
    await section.getByRole("status").filter({ hasText: "Notification preferences saved." }).waitFor();
    const saved = expectSuccess(await asPerson(member.cookie, "/v1/settings/notifications")).data as any;
    expect(saved).toEqual({
      preferences: {
        assigned: { email: "immediate", inApp: true },
        mentioned: { email: "immediate", inApp: true },
        commented: { email: "digest", inApp: false },
        changed: { email: "none", inApp: true },
      },
      timeZone: "Europe/Berlin",
    });
    await page.close();
  }, 120_000);

  it("the task drawer's Follow toggle says whether the person follows the task, and follows and unfollows it", async () => {
    const { owner, member, ownerPersonnelId } = await team();
    const task = await taskBy(owner, ownerPersonnelId);
    const state = async () => expectSuccess(await asPerson(member.cookie, `/v1/tasks/${task.id}/subscription`)).data as any;
    const page = await openLiveConsole(browser(), member, `/?task=${task.id}`);
    const drawer = page.getByRole("dialog", { name: task.title });
    const toggle = drawer.getByRole("button", { name: "Follow", exact: true });
    await toggle.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await toggle.getAttribute("aria-pressed")).toBe("false");
    await expectAccessible(page, "the task drawer with its Follow toggle");

    await toggle.click();
    const following = drawer.getByRole("button", { name: "Following", exact: true });
    await following.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await following.getAttribute("aria-pressed")).toBe("true");
    expect(await state()).toMatchObject({ following: true, reason: "manual" });
    // Followed, the member is told of the owner's comment on it: the badge counts it live.
    const socket = await personSocket(member);
    expectSuccess(await asPerson(owner.cookie, `/v1/tasks/${task.id}/comments`, { body: { body: "Rebar delivered." } }), 201);
    expect(await nextNotification(socket)).toMatchObject({ kind: "commented", record: { id: task.id } });
    await expect.poll(() => page.locator("#inbox-count").textContent(), { timeout: UI_TIMEOUT_MS }).toBe("1");

    await following.click();
    await toggle.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await toggle.getAttribute("aria-pressed")).toBe("false");
    expect(await state()).toMatchObject({ following: false });
    // Opened again, the drawer reads the state anew: still not followed.
    await page.goto(`${workerUrl()}/?task=${task.id}`);
    await page
      .getByRole("dialog", { name: task.title })
      .getByRole("button", { name: "Follow", exact: true })
      .waitFor({ timeout: UI_TIMEOUT_MS });
    await page.close();
  }, 120_000);
});
