/* eslint-disable max-lines -- one browser, one room lease and one arranged board serve the board's work management, one describe. */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { api, workerUrl } from "../helpers/api.ts";
import { insertMilestone, insertPerson, insertProject, keyWith } from "../helpers/fixtures.ts";
import { signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { launchBrowser, openPage, UI_TIMEOUT_MS } from "./browser.ts";

// The board's work management in Chromium (issue 18): labels as chips, the "blocked" badge and
// subtask counts on cards; the task drawer with its comment thread and dependencies; the API's
// 409 open_blockers in plain words; a milestone's progress bar; the search box (?q=) and the label
// filter (?labelId=). Everything is arranged through the API with a key of the organisation (the
// other side of the tests' changes), and every change made elsewhere must reach the console through
// the realtime room. Assertions are on what a person sees: text, roles, names, colours.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ARTIFACTS = `${ROOT}test/artifacts/`;

let browser: Browser;
let origin: string;

useRoom();

beforeAll(async () => {
  origin = workerUrl();
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

interface WorkOrganisation {
  owner: Person;
  key: string;
  projectId: string;
  assigneeId: string;
  tasks: Record<string, string>;
  labels: Record<string, string>;
  milestones: Record<string, string>;
}

/** A call with the organisation's key, which must succeed; answers its data. */
async function call(key: string, path: string, options: { method?: "GET" | "POST" | "PATCH" | "DELETE"; body?: unknown } = {}) {
  const response = await api(path, { key, method: options.method ?? (options.body === undefined ? "GET" : "POST"), body: options.body });
  expect(response.status, response.text).toBeLessThan(300);
  return response.body.data;
}

/**
 * An owner, a project with two milestones, three labels and tasks: some labelled, one with
 * subtasks, two waiting for an open task, and the milestone "Strip-out complete" at 2 done of 4
 * with 1 cancelled (66%).
 */
async function workOrganisation(): Promise<WorkOrganisation> {
  const owner = await signUp({ name: "Katherine Johnson", organisationName: "Harbour Works" });
  const key = (await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" })).key;
  const assignee = await insertPerson(owner.orgId, { name: "Chloe Martin" });
  const project = await insertProject(owner.orgId, { name: "Harbour Street clinic refurbishment", status: "active" });
  const milestones = {
    "Strip-out complete": (await insertMilestone(owner.orgId, project.id, { name: "Strip-out complete", dueDate: "2026-05-01" })).id,
    "First fix done": (await insertMilestone(owner.orgId, project.id, { name: "First fix done", dueDate: "2026-06-01" })).id,
  };
  const labels: Record<string, string> = {};
  for (const [name, colour] of [
    ["Electrical", "#d73a4a"],
    ["Client", "#0e5a8a"],
    ["Supplier", "#fbca04"],
  ] as const) {
    labels[name] = (await call(key, "/v1/labels", { body: { name, colour } })).id;
  }
  const tasks: Record<string, string> = {};
  const task = async (title: string, fields: Record<string, unknown> = {}) => {
    tasks[title] = (
      await call(key, "/v1/tasks", { body: { title, projectId: project.id, assigneeId: assignee.id, dueDate: "2026-05-20", ...fields } })
    ).id;
  };
  await task("Order the consumer unit", { status: "in_progress", labelIds: [labels.Supplier] });
  await task("Rewire the treatment rooms", { labelIds: [labels.Electrical], milestoneId: milestones["First fix done"] });
  await task("Fit the consumer unit", { status: "in_progress", labelIds: [labels.Electrical], priority: "high" });
  await task("Agree the reception layout", {
    labelIds: [labels.Client],
    description: "The client wants a curved desk by the window.\nNo bare plaster behind it.",
  });
  await task("Sketch the desk options", { parentId: tasks["Agree the reception layout"], status: "done" });
  await task("Price the curved desk", { parentId: tasks["Agree the reception layout"] });
  await task("Strip out the old partitions", { milestoneId: milestones["Strip-out complete"], status: "done" });
  await task("Remove the ceiling tiles", { milestoneId: milestones["Strip-out complete"], status: "done" });
  await task("Skip hire for strip-out waste", { milestoneId: milestones["Strip-out complete"], status: "in_progress" });
  await task("Survey for asbestos again", { milestoneId: milestones["Strip-out complete"], status: "cancelled" });
  for (const blocked of ["Rewire the treatment rooms", "Fit the consumer unit"]) {
    await call(key, `/v1/tasks/${tasks[blocked]}/dependencies`, { body: { blockedBy: tasks["Order the consumer unit"] } });
  }
  return { owner, key, projectId: project.id, assigneeId: assignee.id, tasks, labels, milestones };
}

/** The board, signed in as `person`, once it is live and shows the project's cards. */
async function openConsole(person: Person): Promise<Page> {
  // Tall enough for the whole board: a drag that starts while the page scrolls (a card below the
  // fold) picks up whichever card is under the pointer after the scroll.
  const page = await openPage(browser, { as: person, viewport: { width: 1440, height: 1300 } });
  await page.goto(`${origin}/`);
  await expect.poll(() => page.locator("#connection-text").textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/^Live/);
  await card(page, "Agree the reception layout").waitFor();
  return page;
}

/** A card by its title, in whichever column. */
const card = (page: Page, title: string) => page.locator(".card", { has: page.getByRole("heading", { name: title, exact: true }) });
const cardIn = (page: Page, status: string, title: string) =>
  page.locator(`.column[data-status="${status}"] .card`, { has: page.getByRole("heading", { name: title, exact: true }) });
const shownTitles = async (page: Page) => (await page.locator(".card h4").allTextContents()).sort();
const drawerOf = (page: Page) => page.getByRole("dialog");

async function openDrawer(page: Page, title: string): Promise<Locator> {
  await card(page, title).getByRole("button", { name: title, exact: true }).click();
  const drawer = drawerOf(page);
  await drawer.getByRole("heading", { name: title, level: 2 }).waitFor();
  return drawer;
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}` });
}

describe("work on the board", { timeout: 90_000 }, () => {
  it("shows labels as coloured chips, a blocked badge while a blocker is open, and subtasks done; events keep them live", async () => {
    const { owner, key, tasks, labels } = await workOrganisation();
    const page = await openConsole(owner);

    const rewire = card(page, "Rewire the treatment rooms");
    const chip = rewire.getByRole("list", { name: "Labels" }).getByText("Electrical", { exact: true });
    await chip.waitFor();
    expect(await chip.evaluate((node) => getComputedStyle(node).backgroundColor)).toBe("rgb(215, 58, 74)");
    // A light label gets dark text, a dark one white.
    const supplier = card(page, "Order the consumer unit").getByText("Supplier", { exact: true });
    expect(await supplier.evaluate((node) => [getComputedStyle(node).backgroundColor, getComputedStyle(node).color])).toEqual([
      "rgb(251, 202, 4)",
      "rgb(0, 0, 0)",
    ]);
    expect(
      await card(page, "Agree the reception layout")
        .getByText("Client", { exact: true })
        .evaluate((node) => getComputedStyle(node).color),
    ).toBe("rgb(255, 255, 255)");

    await rewire.getByText("Blocked by 1 task").waitFor();
    await card(page, "Fit the consumer unit").getByText("Blocked by 1 task").waitFor();
    expect(await card(page, "Order the consumer unit").textContent()).not.toMatch(/Blocked by/);
    await card(page, "Agree the reception layout").getByText("1/2 subtasks").waitFor();
    await screenshot(page, "work-board.png");

    // Changes made elsewhere, through the API: each reaches the board through its event alone.
    await call(key, `/v1/tasks/${tasks["Price the curved desk"]}`, { method: "PATCH", body: { status: "in_progress" } });
    await call(key, `/v1/tasks/${tasks["Price the curved desk"]}`, { method: "PATCH", body: { status: "done" } });
    await card(page, "Agree the reception layout").getByText("2/2 subtasks").waitFor();

    await call(key, `/v1/tasks/${tasks["Order the consumer unit"]}`, { method: "PATCH", body: { status: "done" } });
    await expect.poll(() => rewire.getByText(/Blocked by/).count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
    expect(
      await card(page, "Fit the consumer unit")
        .getByText(/Blocked by/)
        .count(),
    ).toBe(0);

    await call(key, `/v1/tasks/${tasks["Rewire the treatment rooms"]}`, {
      method: "PATCH",
      body: { labelIds: [labels.Electrical, labels.Client] },
    });
    await rewire.getByRole("list", { name: "Labels" }).getByText("Client", { exact: true }).waitFor();
    await call(key, `/v1/labels/${labels.Electrical}`, { method: "PATCH", body: { name: "Electrics", colour: "#1a7f37" } });
    const renamed = rewire.getByText("Electrics", { exact: true });
    await renamed.waitFor();
    expect(await renamed.evaluate((node) => getComputedStyle(node).backgroundColor)).toBe("rgb(26, 127, 55)");
    await page.close();
  });

  it("opens a task's drawer with its details and comments; a comment added in one console arrives in another; own comments are edited and deleted", async () => {
    const { owner, key, tasks } = await workOrganisation();
    await call(key, `/v1/tasks/${tasks["Agree the reception layout"]}/comments`, {
      body: { body: "The desk supplier needs the final drawing by Friday." },
    });
    const [writer, reader] = [await openConsole(owner), await openConsole(owner)];

    const drawer = await openDrawer(writer, "Agree the reception layout");
    await drawer.getByText("The client wants a curved desk by the window.").waitFor();
    expect(await drawer.getByRole("list", { name: "Subtasks" }).textContent()).toMatch(
      /Sketch the desk options.*Done.*Price the curved desk.*To do/s,
    );
    expect(await drawer.getByText("1/2 done").count()).toBe(1);
    const thread = drawer.locator("#comment-list");
    const keysComment = thread.getByRole("listitem").filter({ hasText: "The desk supplier needs the final drawing by Friday." });
    await keysComment.waitFor();
    expect(await keysComment.textContent()).toContain("Planning sync (API key)");
    // Another author's comment offers no Edit or Delete.
    expect(await keysComment.getByRole("button").count()).toBe(0);

    const other = await openDrawer(reader, "Agree the reception layout");
    await other.getByText("The desk supplier needs the final drawing by Friday.").waitFor();
    const readerCalls: string[] = [];
    reader.on("request", (request: Request) => readerCalls.push(`${request.method()} ${new URL(request.url()).pathname}`));

    // Markup in a comment is text, never markup.
    const body = "Curved desk approved by the client <img src=x onerror=alert(1)> & signed off.";
    await drawer.getByLabel("Add a comment").fill(body);
    await drawer.getByRole("button", { name: "Comment", exact: true }).click();
    const mine = thread.getByRole("listitem").filter({ hasText: "Curved desk approved" });
    await mine.waitFor();
    // Emptied once the API answers (the comment's own event may draw it first).
    await expect.poll(() => drawer.getByLabel("Add a comment").inputValue(), { timeout: UI_TIMEOUT_MS }).toBe("");

    const arrived = other.locator("#comment-list").getByRole("listitem").filter({ hasText: body });
    await arrived.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await arrived.textContent()).toContain("Katherine Johnson");
    expect(await other.locator("#comment-list img").count()).toBe(0);
    await expect
      .poll(() => reader.locator("#event-list li").first().textContent(), { timeout: UI_TIMEOUT_MS })
      .toMatch(/comment\.created.*live.*by Katherine Johnson/s);
    await screenshot(reader, "work-drawer.png");

    await mine.getByRole("button", { name: "Edit" }).click();
    const editor = thread.getByLabel("Edit your comment");
    expect(await editor.inputValue()).toBe(body);
    await editor.fill("Curved desk approved by the client on site.");
    await thread.getByRole("button", { name: "Save" }).click();
    await other.locator("#comment-list").getByText("Curved desk approved by the client on site.").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await other.locator("#comment-list").getByRole("listitem").filter({ hasText: "on site" }).textContent()).toContain("edited");

    const edited = thread.getByRole("listitem").filter({ hasText: "on site" });
    await edited.getByRole("button", { name: "Delete" }).click();
    await edited.getByRole("button", { name: "Confirm delete" }).click();
    await expect.poll(() => other.locator("#comment-list").getByText("on site").count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
    await expect.poll(() => thread.getByText("on site").count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
    // A comment's files panel reads the comment's files once when it is drawn (.../attachments);
    // the thread itself is never read again.
    expect(
      readerCalls.filter((line) => line.includes("/comments") && !/\/comments\/[^/]+\/attachments/.test(line)),
      "the reader's thread changed from the events alone",
    ).toEqual([]);

    const answer = await call(key, `/v1/tasks/${tasks["Agree the reception layout"]}/comments`);
    expect(answer.map((comment: { body: string }) => comment.body)).toEqual(["The desk supplier needs the final drawing by Friday."]);
    await Promise.all([writer.close(), reader.close()]);
  });

  it("adds and removes a blocker in the drawer, and says so in plain words when it would close a circle", async () => {
    const { owner, key, tasks, assigneeId } = await workOrganisation();
    const [page, watcher] = [await openConsole(owner), await openConsole(owner)];
    const drawer = await openDrawer(page, "Agree the reception layout");
    await drawer.getByText("Not waiting for any task.").waitFor();

    await drawer.getByLabel("Add a blocker").selectOption({ label: "Order the consumer unit (In progress)" });
    await drawer.getByRole("button", { name: "Add blocker" }).click();
    const blockers = drawer.getByRole("list", { name: "Blocked by" });
    await blockers.getByRole("listitem").filter({ hasText: "Order the consumer unit" }).filter({ hasText: "In progress" }).waitFor();
    // On the board behind the drawer, and on the other console's board from the event.
    await card(page, "Agree the reception layout").getByText("Blocked by 1 task").waitFor({ state: "attached" });
    await card(watcher, "Agree the reception layout").getByText("Blocked by 1 task").waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await call(key, `/v1/tasks/${tasks["Agree the reception layout"]}`)).blockedBy).toEqual([tasks["Order the consumer unit"]]);
    await screenshot(page, "work-dependencies.png");

    // A blocker's status follows its events.
    await call(key, `/v1/tasks/${tasks["Order the consumer unit"]}`, { method: "PATCH", body: { status: "done" } });
    await blockers
      .getByRole("listitem")
      .filter({ hasText: "Order the consumer unit" })
      .filter({ hasText: "Done" })
      .waitFor({ timeout: UI_TIMEOUT_MS });

    await blockers.getByRole("button", { name: "Remove blocker “Order the consumer unit”" }).click();
    await drawer.getByText("Not waiting for any task.").waitFor();
    expect((await call(key, `/v1/tasks/${tasks["Agree the reception layout"]}`)).blockedBy).toEqual([]);
    await expect
      .poll(
        () =>
          card(watcher, "Agree the reception layout")
            .getByText(/Blocked by/)
            .count(),
        { timeout: UI_TIMEOUT_MS },
      )
      .toBe(0);

    // A blocker added elsewhere, from a project the console never opened: fetched, named, live.
    const supplies = await insertProject(owner.orgId, { name: "Harbour Street supplies", status: "planned" });
    const switchgear = await call(key, "/v1/tasks", {
      body: { title: "Deliver the switchgear", projectId: supplies.id, assigneeId, dueDate: "2026-05-10", status: "in_progress" },
    });
    await call(key, `/v1/tasks/${tasks["Agree the reception layout"]}/dependencies`, { body: { blockedBy: switchgear.id } });
    await blockers
      .getByRole("listitem")
      .filter({ hasText: "Deliver the switchgear" })
      .filter({ hasText: "In progress" })
      .waitFor({ timeout: UI_TIMEOUT_MS });
    await card(watcher, "Agree the reception layout").getByText("Blocked by 1 task").waitFor({ timeout: UI_TIMEOUT_MS });
    await call(key, `/v1/tasks/${switchgear.id}`, { method: "PATCH", body: { status: "cancelled" } });
    await blockers
      .getByRole("listitem")
      .filter({ hasText: "Deliver the switchgear" })
      .filter({ hasText: "Cancelled" })
      .waitFor({ timeout: UI_TIMEOUT_MS });
    await expect
      .poll(
        () =>
          card(watcher, "Agree the reception layout")
            .getByText(/Blocked by/)
            .count(),
        { timeout: UI_TIMEOUT_MS },
      )
      .toBe(0);

    // "Order the consumer unit" cannot wait for a task that waits for it.
    await drawer.getByRole("button", { name: "Close" }).click();
    const order = await openDrawer(page, "Order the consumer unit");
    await order.getByRole("list", { name: "Blocking" }).getByText("Fit the consumer unit").waitFor();
    await order.getByLabel("Add a blocker").selectOption({ label: "Fit the consumer unit (In progress)" });
    await order.getByRole("button", { name: "Add blocker" }).click();
    await expect
      .poll(() => order.getByRole("alert").textContent(), { timeout: UI_TIMEOUT_MS })
      .toBe(
        "“Order the consumer unit” cannot wait for “Fit the consumer unit”: that task already waits for it (“Order the consumer unit” waits for “Fit the consumer unit”, which waits for “Order the consumer unit”), and neither could ever be done. (409 dependency_cycle)",
      );
    expect((await call(key, `/v1/tasks/${tasks["Order the consumer unit"]}`)).blockedBy).toEqual([]);
    await Promise.all([page.close(), watcher.close()]);
  });

  it("shows the API's 409 open_blockers in plain words when a blocked task is dragged or moved to done", async () => {
    const { owner, tasks, key } = await workOrganisation();
    const page = await openConsole(owner);
    const fit = cardIn(page, "in_progress", "Fit the consumer unit");
    await fit.locator(".meta").dragTo(page.locator('.column[data-status="done"]'));
    const notice = page.locator("#notice");
    await expect
      .poll(() => notice.textContent(), { timeout: UI_TIMEOUT_MS })
      .toBe(
        "“Fit the consumer unit” cannot be done yet: it is waiting for “Order the consumer unit” (In progress). " +
          "Finish or cancel that task first, or remove it from its dependencies. (409 open_blockers)",
      );
    expect(await notice.getAttribute("role")).toBe("alert");
    expect(await cardIn(page, "in_progress", "Fit the consumer unit").getAttribute("class")).toContain("refused");
    await screenshot(page, "work-open-blockers.png");
    expect((await call(key, `/v1/tasks/${tasks["Fit the consumer unit"]}`)).status).toBe("in_progress");

    // Once its blocker is done (elsewhere), the same move by its button goes through.
    await call(key, `/v1/tasks/${tasks["Order the consumer unit"]}`, { method: "PATCH", body: { status: "done" } });
    await expect
      .poll(
        () =>
          card(page, "Fit the consumer unit")
            .getByText(/Blocked by/)
            .count(),
        { timeout: UI_TIMEOUT_MS },
      )
      .toBe(0);
    await page.getByRole("button", { name: "Move “Fit the consumer unit” to Done" }).click();
    await cardIn(page, "done", "Fit the consumer unit").waitFor();
    // The move's own event may draw the card before its answer arrives, which clears the notice.
    await expect.poll(() => notice.isHidden(), { timeout: UI_TIMEOUT_MS }).toBe(true);
    await page.close();
  });

  it("shows each milestone's progress bar with the API's percentDone, moving with the tasks", async () => {
    const { owner, key, tasks, milestones } = await workOrganisation();
    const page = await openConsole(owner);
    const stripOut = page.getByRole("progressbar", { name: "Strip-out complete progress" });
    await stripOut.waitFor();
    const progress = async () => (await call(key, `/v1/milestones/${milestones["Strip-out complete"]}`)).progress;
    expect(await progress()).toEqual({ total: 4, done: 2, cancelled: 1, open: 1, percentDone: 66 });
    expect(await stripOut.getAttribute("aria-valuenow")).toBe("66");
    const item = page.locator("#milestone-list li", { hasText: "Strip-out complete" });
    expect(await item.getByText("66% · 2/4 done · 1 cancelled").count()).toBe(1);
    expect(
      await stripOut
        .locator(".fill")
        .evaluate((node) => node.getBoundingClientRect().width / node.parentElement!.getBoundingClientRect().width),
    ).toBeCloseTo(0.66, 2);
    expect(await page.getByRole("progressbar", { name: "First fix done progress" }).getAttribute("aria-valuenow")).toBe("0");
    await screenshot(page, "work-milestones.png");

    await call(key, `/v1/tasks/${tasks["Skip hire for strip-out waste"]}`, { method: "PATCH", body: { status: "done" } });
    await expect.poll(() => stripOut.getAttribute("aria-valuenow"), { timeout: UI_TIMEOUT_MS }).toBe("100");
    expect(await item.getByText("100% · 3/4 done · 1 cancelled").count()).toBe(1);
    expect((await progress()).percentDone).toBe(100);

    // A task moved into the milestone counts at once.
    await call(key, `/v1/tasks/${tasks["Rewire the treatment rooms"]}`, {
      method: "PATCH",
      body: { milestoneId: milestones["Strip-out complete"] },
    });
    await expect.poll(() => stripOut.getAttribute("aria-valuenow"), { timeout: UI_TIMEOUT_MS }).toBe("75");
    expect(await progress()).toEqual({ total: 5, done: 3, cancelled: 1, open: 1, percentDone: 75 });
    await page.close();
  });

  it("narrows the board with the search box (full-text) and the label filter, and keeps it narrowed as tasks change", async () => {
    const { owner, key, projectId, assigneeId, labels } = await workOrganisation();
    const page = await openConsole(owner);
    const all = await shownTitles(page);
    expect(all).toHaveLength(10);
    const search = page.getByRole("searchbox", { name: "Search tasks" });
    const status = page.locator("#filter-status");

    // The API's English stemming: "rewiring" finds "Rewire", "units" finds "unit".
    await search.fill("units");
    await expect.poll(() => shownTitles(page), { timeout: UI_TIMEOUT_MS }).toEqual(["Fit the consumer unit", "Order the consumer unit"]);
    expect(await status.textContent()).toBe("Showing 2 of 10 tasks");
    await search.fill("rewiring");
    await expect.poll(() => shownTitles(page), { timeout: UI_TIMEOUT_MS }).toEqual(["Rewire the treatment rooms"]);
    // The description is searched too.
    await search.fill("plaster");
    await expect.poll(() => shownTitles(page), { timeout: UI_TIMEOUT_MS }).toEqual(["Agree the reception layout"]);

    await search.fill("");
    await expect.poll(() => shownTitles(page), { timeout: UI_TIMEOUT_MS }).toEqual(all);
    expect(await status.textContent()).toBe("");
    const filter = page.getByLabel("Label", { exact: true });
    expect(await filter.locator("option").allTextContents()).toEqual(["All labels", "Client", "Electrical", "Supplier"]);
    await filter.selectOption({ label: "Electrical" });
    await expect.poll(() => shownTitles(page), { timeout: UI_TIMEOUT_MS }).toEqual(["Fit the consumer unit", "Rewire the treatment rooms"]);
    await search.fill("fit");
    await expect.poll(() => shownTitles(page), { timeout: UI_TIMEOUT_MS }).toEqual(["Fit the consumer unit"]);
    await search.fill("");
    await expect.poll(() => shownTitles(page), { timeout: UI_TIMEOUT_MS }).toEqual(["Fit the consumer unit", "Rewire the treatment rooms"]);
    await screenshot(page, "work-filter.png");

    // Tasks made elsewhere: one without the label stays off the board; the sentinel, with the
    // label and made after it, shows; so the first was not merely late.
    const base = { projectId, assigneeId, dueDate: "2026-05-30" };
    await call(key, "/v1/tasks", { body: { ...base, title: "Paint the corridor" } });
    await call(key, "/v1/tasks", { body: { ...base, title: "Test the new circuits", labelIds: [labels.Electrical] } });
    await expect
      .poll(() => shownTitles(page), { timeout: UI_TIMEOUT_MS })
      .toEqual(["Fit the consumer unit", "Rewire the treatment rooms", "Test the new circuits"]);
    await filter.selectOption({ label: "All labels" });
    await expect.poll(() => shownTitles(page), { timeout: UI_TIMEOUT_MS }).toContain("Paint the corridor");
    expect(await shownTitles(page)).toHaveLength(12);
    await page.close();
  });
});
