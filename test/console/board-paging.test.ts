import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { query } from "../helpers/database.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { fixturesOf, signUp } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { call, openLiveConsole } from "./records-helpers.ts";

// A board past the lists' cap (2,000 tasks) says what it leaves out: each column shows how many
// tasks it holds of how many the API counts (GET /v1/tasks/counts), "Show more" loads the rest of a
// column, and once every task is held the board counts them itself, live.

useRoom();
const browser = useBrowser();

/** Inserts `n` tasks of `status` at once (after any inserted before: creation order). */
const insertTasks = (orgId: string, projectId: string, assigneeId: string, status: string, n: number) =>
  query(
    `insert into tasks (id, org_id, project_id, assignee_id, title, status, due_date, created_at)
     select gen_random_uuid(), $1, $2, $3, $4 || ' ' || i, $4, date '2026-06-01' + (i % 90), clock_timestamp()
       from generate_series(1, $5::int) i`,
    [orgId, projectId, assigneeId, status, n],
  );

describe("a board of more than 2,000 tasks", () => {
  it("counts every column as the API does, shows more on demand, and holds them all at last", async () => {
    const owner = await signUp({ name: "Katherine Johnson", organisationName: "Langley Works" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const fixtures = fixturesOf(owner.orgId);
    const project = await fixtures.insertProject({ name: "Wind tunnel", status: "active" });
    const person = await fixtures.insertPerson();
    await insertTasks(owner.orgId, project.id, person.id, "todo", 2005);
    await insertTasks(owner.orgId, project.id, person.id, "in_progress", 5);
    const counts = await call(key, `/v1/tasks/counts?projectId=${project.id}`);
    expect(counts).toMatchObject({ total: 2010, byStatus: { todo: 2005, in_progress: 5, blocked: 0 } });

    const page = await openLiveConsole(browser(), owner, `/?project=${project.id}`);
    const column = (name: string) => page.getByRole("region", { name: new RegExp(`^${name}`) });
    const countOf = (name: string) => column(name).locator("h3 span").getAttribute("aria-label");
    await expect.poll(() => countOf("To do"), { timeout: UI_TIMEOUT_MS }).toBe("2000 of 2005 tasks shown");
    expect(await countOf("In progress")).toBe("0 of 5 tasks shown");
    expect(await countOf("Blocked")).toBe("0 tasks");
    expect(await page.locator("#board-cut").textContent()).toContain("This project has 2,010 tasks and the board holds 2,000 of them");
    expect(await column("To do").locator(".card").count()).toBe(2000);

    // A column's own button, its text read off it: a role query among the 2,000 cards' buttons of
    // "To do" outlasted the click's 30 s on a loaded machine (on main as well as here).
    const more = (name: string) => column(name).locator("button.column-more");
    expect(await more("In progress").textContent()).toBe("Show more (5 not shown)");
    await more("In progress").click();
    await expect.poll(() => countOf("In progress"), { timeout: UI_TIMEOUT_MS }).toBe("5 tasks");
    expect(await more("In progress").isHidden()).toBe(true);
    expect(await more("To do").textContent()).toBe("Show more (5 not shown)");
    await more("To do").click();
    await expect.poll(() => countOf("To do"), { timeout: UI_TIMEOUT_MS }).toBe("2005 tasks");
    // The column says "2005 tasks" once it holds them all; the notice goes when the count that follows confirms the board holds every task.
    await expect.poll(() => page.locator("#board-cut").isHidden(), { timeout: UI_TIMEOUT_MS }).toBe(true);
    expect(await column("To do").locator(".card").count()).toBe(2005);

    // Every task held: a new one is counted live, as the API counts it.
    await call(key, "/v1/tasks", {
      body: { title: "Calibrate the balance", projectId: project.id, assigneeId: person.id, dueDate: "2026-07-01", status: "in_progress" },
    });
    await expect.poll(() => countOf("In progress"), { timeout: UI_TIMEOUT_MS }).toBe("6 tasks");
    expect((await call(key, `/v1/tasks/counts?projectId=${project.id}`)).byStatus.in_progress).toBe(6);
    await page.close();
  }, 180_000);
});
