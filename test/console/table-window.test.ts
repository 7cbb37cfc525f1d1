import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { query } from "../helpers/database.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { fixturesOf, signUp } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { expectAccessible } from "./axe.ts";
import { UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { call, openLiveConsole } from "./records-helpers.ts";

// A table of more than 200 rows draws those in view as it is scrolled (console/js/lib/row-window.js):
// it still says how many it holds (its count, aria-rowcount, each row's aria-rowindex), every row is
// reached by Tab and by scrolling, the focused row is never taken away, and a live change shows in a
// row drawn and in one drawn later.

useRoom();
const browser = useBrowser();
const TASKS = 500;

describe("a task table of 500 tasks", () => {
  it("draws the rows in view, counts every row, and reaches each by keyboard and scrolling", async () => {
    const owner = await signUp({ name: "Katherine Johnson", organisationName: "Langley Works" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const fixtures = fixturesOf(owner.orgId);
    const project = await fixtures.insertProject({ name: "Wind tunnel", status: "active" });
    const person = await fixtures.insertPerson();
    await query(
      `insert into tasks (id, org_id, project_id, assignee_id, title, status, due_date, created_at)
       select gen_random_uuid(), $1, $2, $3, 'Task ' || i, 'todo', date '2026-06-01' + (i % 90), clock_timestamp()
         from generate_series(1, $4::int) i`,
      [owner.orgId, project.id, person.id, TASKS],
    );

    const page = await openLiveConsole(browser(), owner, `/?project=${project.id}&view=tasks`);
    const table = page.locator("#table-view table");
    await expect
      .poll(() => page.locator("#table-view .table-count").textContent(), { timeout: UI_TIMEOUT_MS })
      .toBe(`Showing ${TASKS} of ${TASKS} tasks; rows are drawn as they are scrolled into view.`);
    expect(await table.getAttribute("aria-rowcount")).toBe(String(TASKS + 1));
    const drawn = page.locator("#table-view tbody tr[data-id]");
    const count = await drawn.count();
    expect(count).toBeGreaterThan(20);
    expect(count).toBeLessThan(TASKS);
    // In order (titles sort by number), each row its place among all of them (the header's is 1).
    expect(await drawn.first().getAttribute("aria-rowindex")).toBe("2");
    expect(await drawn.first().locator("th").textContent()).toBe("Task 1");
    expect(await page.locator("#table-view tbody tr.spacer").getAttribute("aria-hidden")).toBe("true");
    await expectAccessible(page, "a task table drawing the rows in view");

    // Tab from the first row's button past every row drawn at first: each one reached in turn.
    await drawn.first().locator("button").focus();
    const focused = () =>
      page.evaluate(() => {
        const row = document.activeElement?.closest("tr");
        return `${row?.getAttribute("aria-rowindex")} ${document.activeElement?.textContent}`;
      });
    for (let i = 2; i <= count + 10; i++) {
      await page.keyboard.press("Tab");
      expect(await focused()).toBe(`${i + 1} Task ${i}`);
    }
    await page.keyboard.press("Shift+Tab");
    expect(await focused()).toBe(`${count + 10} Task ${count + 9}`);

    // Scrolled to the end: the last rows drawn, the focused row kept (not taken from under the focus).
    const wrap = page.locator("#table-view .table-wrap");
    await wrap.evaluate((node) => (node.scrollTop = node.scrollHeight));
    await expect.poll(() => drawn.last().getAttribute("aria-rowindex"), { timeout: UI_TIMEOUT_MS }).toBe(String(TASKS + 1));
    expect(await drawn.last().locator("th").textContent()).toBe(`Task ${TASKS}`);
    expect(await focused()).toBe(`${count + 10} Task ${count + 9}`);

    // Live: a change to a row drawn shows at once; one to a row not drawn shows when it is scrolled to.
    const idOf = async (title: string) =>
      (await query<{ id: string }>("select id from tasks where title = $1 and project_id = $2", [title, project.id]))[0]!.id;
    const [last, third] = [await idOf(`Task ${TASKS}`), await idOf("Task 3")];
    await call(key, `/v1/tasks/${last}`, { method: "PATCH", body: { title: `Task ${TASKS} (checked)` } });
    await expect.poll(() => drawn.last().locator("th").textContent(), { timeout: UI_TIMEOUT_MS }).toBe(`Task ${TASKS} (checked)`);
    await call(key, `/v1/tasks/${third}`, { method: "PATCH", body: { title: "Task 3 (checked)" } });
    expect(await page.locator(`#table-view tr[data-id="${third}"]`).count()).toBe(0);
    await wrap.evaluate((node) => (node.scrollTop = 0));
    await expect
      .poll(() => page.locator(`#table-view tr[data-id="${third}"] th`).textContent(), { timeout: UI_TIMEOUT_MS })
      .toBe("Task 3 (checked)");
    expect(await table.getAttribute("aria-rowcount")).toBe(String(TASKS + 1));
    await page.close();
  }, 180_000);
});
