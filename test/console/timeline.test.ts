import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { signUp } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { expectAccessible } from "./axe.ts";
import { UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { call, openLiveConsole } from "./records-helpers.ts";

// A project's timeline: bars on a date axis, a dependency drawn as an arrow, a milestone; dragging
// a bar, or its arrow keys, changes the task's dates through the API.

useRoom();
const browser = useBrowser();

describe("the timeline", () => {
  it("draws tasks, a dependency and a milestone, and a drag or an arrow key moves a task's dates through the API", async () => {
    const owner = await signUp({ name: "Marjorie Lee", organisationName: "Browne Docks" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Quay wall", budget: 0, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" },
    });
    const person = await call(key, "/v1/personnel", { body: { name: "Ruth Bates", email: "ruth@example.test" } });
    const task = (title: string, dueDate: string) =>
      call(key, "/v1/tasks", { body: { title, projectId: project.id, assigneeId: person.id, dueDate } });
    const survey = await task("Survey the wall", "2026-03-02");
    const repoint = await task("Repoint the wall", "2026-03-10");
    await call(key, `/v1/tasks/${repoint.id}/dependencies`, { body: { blockedBy: survey.id } });
    await call(key, `/v1/projects/${project.id}/milestones`, { body: { name: "Wall sound", dueDate: "2026-03-20" } });

    const page = await openLiveConsole(browser(), owner, `/?project=${project.id}&view=timeline`);
    const bar = page.getByRole("button", { name: /^Survey the wall: due 2026-03-02/ });
    await bar.waitFor();
    await expect.poll(() => page.locator(".timeline .tl-arrow").count(), { timeout: UI_TIMEOUT_MS }).toBe(1);
    expect(await page.locator(".timeline .tl-milestone title").textContent()).toBe("Wall sound, due 2026-03-20");
    await expectAccessible(page, "the timeline");

    // A drag of two days' width to the right.
    const box = (await bar.locator("rect").boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + box.width * 2, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => (await call(key, `/v1/tasks/${survey.id}`)).dueDate, { timeout: UI_TIMEOUT_MS }).toBe("2026-03-04");

    // The keyboard: one day back.
    await page.getByRole("button", { name: /^Survey the wall: due 2026-03-04/ }).focus();
    await page.keyboard.press("ArrowLeft");
    await expect.poll(async () => (await call(key, `/v1/tasks/${survey.id}`)).dueDate, { timeout: UI_TIMEOUT_MS }).toBe("2026-03-03");

    // A change made elsewhere moves the bar.
    await call(key, `/v1/tasks/${repoint.id}`, { method: "PATCH", body: { dueDate: "2026-04-01" } });
    await page.getByRole("button", { name: /^Repoint the wall: due 2026-04-01/ }).waitFor();
    await page.close();
  }, 90_000);

  it("the overview is drawn from the project's records: a changed entry changes the spend, a risk sits in its cell, a task done is progress", async () => {
    const owner = await signUp({ name: "Vivian Adams", organisationName: "Reid Locks" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Lock gates", budget: 1000, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" },
    });
    await call(key, "/v1/risks", { body: { projectId: project.id, title: "Timber late", probability: "high", impact: "medium" } });
    await call(key, "/v1/issues", { body: { projectId: project.id, title: "Hinge cracked", severity: "critical" } });
    const entry = await call(key, "/v1/financial-entries", {
      body: { projectId: project.id, kind: "cost", amount: "250.00", currency: "EUR", date: "2026-02-10" },
    });
    const person = await call(key, "/v1/personnel", { body: { name: "Grace Hopper", email: "grace@example.com" } });
    const task = await call(key, "/v1/tasks", {
      body: { projectId: project.id, assigneeId: person.id, title: "Grease the gates", dueDate: "2026-06-01" },
    });
    const page = await openLiveConsole(browser(), owner, `/?project=${project.id}&view=overview`);
    // Progress over time: a chart named by its title and described by its figures, and every week in a table.
    const progress = page.getByRole("table", { name: /^Progress over time/ });
    const thisWeek = () => progress.locator("tbody tr").last().innerText();
    await expect.poll(thisWeek, { timeout: UI_TIMEOUT_MS }).toMatch(/^\d{4}-\d{2}-\d{2}\t1\t0\t0%$/);
    const chart = page.getByRole("img", { name: /^Progress over time/ });
    expect(await chart.getAttribute("aria-labelledby")).toMatch(/-title .*-desc$/);
    expect(await chart.locator("desc").textContent()).toMatch(/tasks made went from \d+ to 1, done from 0 to 0/);
    const spend = page.getByRole("table", { name: /^Spend by month against the budget of 1,000/ });
    await expect.poll(() => spend.getByRole("row", { name: /2026-02/ }).textContent(), { timeout: UI_TIMEOUT_MS }).toContain("250.00");
    const matrix = page.getByRole("table", { name: /^Risk matrix/ });
    expect(await matrix.getByRole("row", { name: /^high probability/ }).allInnerTexts()).toEqual(["high probability\t—\tTimber late\t—"]);
    const issues = page.getByRole("table", { name: "Open issues by severity (1)" });
    expect(await issues.getByRole("row", { name: /^critical/ }).textContent()).toContain("1");
    await expectAccessible(page, "the overview");
    await call(key, `/v1/financial-entries/${entry.id}`, { method: "PATCH", body: { amount: "400.00" } });
    await expect.poll(() => spend.getByRole("row", { name: /2026-02/ }).textContent(), { timeout: UI_TIMEOUT_MS }).toContain("400.00");
    // A task done elsewhere is done in this week's point, table and chart alike.
    for (const status of ["in_progress", "done"]) await call(key, `/v1/tasks/${task.id}`, { method: "PATCH", body: { status } });
    await expect.poll(thisWeek, { timeout: UI_TIMEOUT_MS }).toMatch(/\t1\t1\t100%$/);
    expect(await chart.locator("desc").textContent()).toMatch(/done from 0 to 1/);
    await page.close();
  }, 90_000);
});
