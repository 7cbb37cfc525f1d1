import type { Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { api } from "../helpers/api.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { asPerson, memberOf, signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { expectAccessible } from "./axe.ts";
import { useBrowser, UI_TIMEOUT_MS } from "./browser.ts";
import { call, form, openLiveConsole } from "./records-helpers.ts";

// Records made and changed in the console (issue 46): the forms are the API's request schemas, a
// refusal is shown at the field the API names and makes nothing, a create carries an
// Idempotency-Key, a change carries If-Match and a stale one shows both versions to choose from.
// Every page and open form is checked with axe-core.

useRoom();
const browser = useBrowser();
const openConsole = (person: Person) => openLiveConsole(browser(), person);

describe("records made in the console", () => {
  it("a person who just signed up creates a project and its first milestone through the page; a refusal shows at the field and creates nothing", async () => {
    const owner = await signUp({ name: "Mary Jackson", organisationName: "Tidewater Depot" });
    const page = await openConsole(owner);
    await expect
      .poll(() => page.locator("#notice").textContent(), { timeout: UI_TIMEOUT_MS })
      .toBe("No projects yet: create the first with “New project”.");
    await expectAccessible(page, "the empty console");
    const posts: Request[] = [];
    page.on("request", (request) => request.method() === "POST" && request.url().endsWith("/v1/projects") && posts.push(request));

    await page.getByRole("button", { name: "New project" }).click();
    const dialog = form(page, "New project");
    // The schema's required marks and limits.
    expect(await dialog.getByLabel("Name").getAttribute("maxlength")).toBe("200");
    expect(await dialog.getByLabel("Name").getAttribute("required")).toBe("");
    expect(await dialog.getByLabel("Status").locator("option").allTextContents()).toEqual([
      "planned",
      "active",
      "on hold",
      "completed",
      "cancelled",
    ]);
    await expectAccessible(page, "the new project form");
    await dialog.getByLabel("Name").fill("Warehouse move");
    await dialog.getByLabel("Budget").fill("25000");
    await dialog.getByLabel("Start date").fill("2027-03-31");
    await dialog.getByLabel("End date").fill("2026-12-15");
    await dialog.getByRole("button", { name: "Create project" }).click();

    // The API's refusal, at the field it names; nothing was made.
    const endDate = dialog.getByLabel("End date");
    await expect.poll(() => endDate.getAttribute("aria-invalid"), { timeout: UI_TIMEOUT_MS }).toBe("true");
    expect(await page.locator("#rf-endDate-error").textContent()).toMatch(/endDate must not be before startDate/);
    expect(await dialog.getByRole("alert").textContent()).toMatch(/^Not saved: .*\(400 invalid_field\)$/);
    await expectAccessible(page, "the refused form");
    expect((await asPerson(owner.cookie, "/v1/projects")).body.data).toEqual([]);

    await endDate.fill("2027-06-30");
    await dialog.getByRole("button", { name: "Create project" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page
      .getByRole("navigation", { name: "Projects" })
      .getByRole("button", { name: /Warehouse move/ })
      .waitFor();
    const projects = (await asPerson(owner.cookie, "/v1/projects")).body.data;
    expect(projects.map((p: { name: string; budget: number }) => [p.name, p.budget])).toEqual([["Warehouse move", 25000]]);
    // Each create carried an Idempotency-Key; the refused body and the corrected one differ.
    const keys = posts.map((request) => request.headers()["idempotency-key"]);
    expect(keys).toHaveLength(2);
    expect(keys.every((key) => /^[0-9a-f-]{36}$/.test(key ?? ""))).toBe(true);

    // The project's first milestone, through the page too.
    await page.getByRole("button", { name: "New milestone" }).click();
    const milestone = form(page, "New milestone");
    await milestone.getByLabel("Name").fill("Racking installed");
    await milestone.getByLabel("Due date").fill("2027-05-14");
    await expectAccessible(page, "the new milestone form");
    await milestone.getByRole("button", { name: "Create milestone" }).click();
    await milestone.waitFor({ state: "hidden" });
    const milestones = (await asPerson(owner.cookie, `/v1/projects/${projects[0].id}/milestones`)).body.data;
    expect(milestones.map((m: { name: string; dueDate: string; status: string }) => [m.name, m.dueDate, m.status])).toEqual([
      ["Racking installed", "2027-05-14", "open"],
    ]);
    await page.close();
  }, 90_000);

  it("creates a task with an assignee, due date and label; an edit over a stale version shows both and lets the person choose", async () => {
    const owner = await signUp({ name: "Dorothy Vaughan", organisationName: "Langley Fitters" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Wind tunnel refit", budget: 50000, startDate: "2026-01-05", endDate: "2026-09-30", status: "active" },
    });
    const person = await call(key, "/v1/personnel", { body: { name: "Katherine Goble", email: "katherine@example.test" } });
    const label = await call(key, "/v1/labels", { body: { name: "Electrical", colour: "#d73a4a" } });
    const page = await openConsole(owner);
    await page.getByRole("heading", { name: "Tasks · Wind tunnel refit" }).waitFor();

    await page.getByRole("button", { name: "New task" }).click();
    const dialog = form(page, "New task");
    await dialog.getByLabel("Title").fill("Rewire the fan motor");
    await dialog.getByRole("combobox", { name: "Assignee" }).selectOption({ label: "Katherine Goble" });
    await dialog.getByLabel("Due date").fill("2026-04-20");
    await dialog.getByRole("checkbox", { name: "Electrical" }).check();
    await expectAccessible(page, "the new task form");
    await dialog.getByRole("button", { name: "Create task" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.locator(".card", { hasText: "Rewire the fan motor" }).waitFor();
    const [task] = await call(key, `/v1/tasks?projectId=${project.id}`);
    expect([task.title, task.assigneeId, task.dueDate, task.labelIds, task.status]).toEqual([
      "Rewire the fan motor",
      person.id,
      "2026-04-20",
      [label.id],
      "todo",
    ]);

    // Opened at version 1; someone else saves meanwhile; this save is refused (412) and compared.
    await page.getByRole("button", { name: "Rewire the fan motor", exact: true }).click();
    await page.getByRole("button", { name: "Edit task" }).click();
    const edit = form(page, "Edit task “Rewire the fan motor”");
    await edit.getByLabel("Priority").selectOption("urgent");
    await call(key, `/v1/tasks/${task.id}`, { method: "PATCH", body: { priority: "low" } });
    await edit.getByRole("button", { name: "Save changes" }).click();
    const conflict = edit.getByRole("region", { name: /^Changed by .+ since you opened it \(now version 2\)$/ });
    await conflict.waitFor();
    expect(await conflict.getByRole("row").allInnerTexts()).toEqual(["Field\tYours\tTheirs, now", "Priority\turgent\tlow"]);
    await expectAccessible(page, "the conflict view");
    expect((await call(key, `/v1/tasks/${task.id}`)).priority).toBe("low");
    await conflict.getByRole("button", { name: "Save mine over theirs" }).click();
    await edit.waitFor({ state: "hidden" });
    expect((await call(key, `/v1/tasks/${task.id}`)).priority).toBe("urgent");
    await page.close();
  }, 90_000);
});

describe("the tables of a project", () => {
  it("risks, issues and financial entries are made through the page and listed; the task table's filters survive a reload", async () => {
    const owner = await signUp({ name: "Christine Darden", organisationName: "Hampton Yards" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Dry dock", budget: 90000, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" },
    });
    const person = await call(key, "/v1/personnel", { body: { name: "Miriam Mann", email: "miriam@example.test" } });
    const other = await call(key, "/v1/personnel", { body: { name: "Dorothy Hoover", email: "dorothy@example.test" } });
    for (const [title, assigneeId, dueDate] of [
      ["Pump out the basin", person.id, "2026-03-01"],
      ["Inspect the gate seals", person.id, "2026-05-01"],
      ["Order new fenders", other.id, "2026-06-01"],
    ] as const) {
      await call(key, "/v1/tasks", { body: { title, projectId: project.id, dueDate, assigneeId } });
    }
    const page = await openConsole(owner);
    const views = page.getByRole("navigation", { name: "Views" });

    await views.getByRole("button", { name: "Risks" }).click();
    await page.getByRole("button", { name: "New risk" }).click();
    let dialog = form(page, "New risk");
    await dialog.getByLabel("Title").fill("Crane unavailable on the lift day");
    await dialog.getByLabel("Probability").selectOption("high");
    await dialog.getByLabel("Impact").selectOption("medium");
    await dialog.getByLabel("Owner").selectOption({ label: "Miriam Mann" });
    await dialog.getByRole("button", { name: "Create risk" }).click();
    await page.getByRole("row", { name: /Crane unavailable on the lift day/ }).waitFor();
    await expectAccessible(page, "the risks table");
    const [risk] = await call(key, `/v1/risks?projectId=${project.id}`);
    expect([risk.title, risk.probability, risk.impact, risk.ownerId]).toEqual([
      "Crane unavailable on the lift day",
      "high",
      "medium",
      person.id,
    ]);

    await views.getByRole("button", { name: "Issues" }).click();
    await page.getByRole("button", { name: "New issue" }).click();
    dialog = form(page, "New issue");
    await dialog.getByLabel("Title").fill("Gate seal leaking");
    await dialog.getByLabel("Severity").selectOption("critical");
    await dialog.getByRole("button", { name: "Create issue" }).click();
    await page.getByRole("row", { name: /Gate seal leaking/ }).waitFor();
    expect((await call(key, `/v1/issues?projectId=${project.id}`)).map((i: { severity: string }) => i.severity)).toEqual(["critical"]);

    // A refusal only the API knows (a negative cost), at its field; then the entry.
    await views.getByRole("button", { name: "Money" }).click();
    await page.getByRole("button", { name: "New financial entry" }).click();
    dialog = form(page, "New financial entry");
    await dialog.getByLabel("Kind").selectOption("cost");
    await dialog.getByLabel("Amount").fill("-120.00");
    await dialog.getByLabel("Currency").fill("EUR");
    await dialog.getByLabel("Date (required)", { exact: true }).fill("2026-02-10");
    await dialog.getByRole("button", { name: "Create financial entry" }).click();
    await expect
      .poll(() => page.locator("#rf-amount-error").textContent(), { timeout: UI_TIMEOUT_MS })
      .toMatch(/only an adjustment may be negative/);
    expect(await call(key, `/v1/financial-entries?projectId=${project.id}`)).toEqual([]);
    await dialog.getByLabel("Amount").fill("120.00");
    await dialog.getByRole("button", { name: "Create financial entry" }).click();
    await page.getByRole("row", { name: /cost/ }).waitFor();
    expect((await call(key, `/v1/financial-entries?projectId=${project.id}`)).map((e: { amount: string }) => e.amount)).toEqual(["120.00"]);

    // The task table: filters and sort in the address, the same after a reload.
    await views.getByRole("button", { name: "Task table" }).click();
    const table = page.getByRole("table", { name: "Task table of Dry dock" });
    await table.getByRole("row", { name: /Order new fenders/ }).waitFor();
    await page
      .getByRole("search", { name: "Filter tasks" })
      .getByRole("combobox", { name: "Assignee" })
      .selectOption({ label: "Miriam Mann" });
    await page.getByLabel("Due date from").fill("2026-04-15");
    const titles = () => table.locator("tbody th").allTextContents();
    await expect.poll(titles).toEqual(["Inspect the gate seals"]);
    await expectAccessible(page, "the task table");
    expect(new URL(page.url()).searchParams.get("assigneeId")).toBe(person.id);
    await page.reload();
    await expect.poll(titles, { timeout: UI_TIMEOUT_MS }).toEqual(["Inspect the gate seals"]);
    expect(await page.getByLabel("Due date from").inputValue()).toBe("2026-04-15");
    // The count settles once the project's tasks are all in: while they arrive it says the API holds more.
    await expect
      .poll(
        () =>
          page
            .getByRole("status")
            .filter({ hasText: /^Showing/ })
            .textContent(),
        { timeout: UI_TIMEOUT_MS },
      )
      .toBe("Showing 1 of 3 tasks.");
    await page.close();
  }, 120_000);
});

describe("a task's checklist, deletes and roles", () => {
  it("adds and ticks checklist items, deletes a task; a member without projects.manage sees no project controls, and the API refuses them", async () => {
    const owner = await signUp({ name: "Annie Easley", organisationName: "Lewis Works" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Boiler house", budget: 0, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" },
    });
    const person = await call(key, "/v1/personnel", { body: { name: "Melba Roy", email: "melba@example.test" } });
    const task = await call(key, "/v1/tasks", {
      body: { title: "Flush the radiators", projectId: project.id, assigneeId: person.id, dueDate: "2026-03-01" },
    });
    const page = await openConsole(owner);
    await page.getByRole("button", { name: "Flush the radiators", exact: true }).click();
    const drawer = page.getByRole("dialog", { name: "Flush the radiators" });
    await drawer.getByLabel("Add an item").fill("Photograph the meters");
    await drawer.getByRole("button", { name: "Add item" }).click();
    await drawer.getByRole("checkbox", { name: "Photograph the meters" }).check();
    await expect.poll(() => drawer.getByText(/of 1 done$/).textContent(), { timeout: UI_TIMEOUT_MS }).toBe("1 of 1 done");
    await expectAccessible(page, "the task drawer with its checklist");
    expect(
      (await call(key, `/v1/tasks/${task.id}/checklist-items`)).map((i: { title: string; done: boolean }) => [i.title, i.done]),
    ).toEqual([["Photograph the meters", true]]);

    await drawer.getByRole("button", { name: "Edit task" }).click();
    const edit = form(page, "Edit task “Flush the radiators”");
    await edit.getByRole("button", { name: "Delete task" }).click();
    await edit.getByRole("button", { name: "Yes, delete this task" }).click();
    await edit.waitFor({ state: "hidden" });
    await expect.poll(() => page.locator(".card", { hasText: "Flush the radiators" }).count()).toBe(0);
    expect((await api(`/v1/tasks/${task.id}`, { key })).status).toBe(404);
    await page.close();

    const member = await memberOf(owner, "member");
    const seen = await openConsole(member);
    await seen.getByRole("heading", { name: "Tasks · Boiler house" }).waitFor();
    await seen.getByRole("button", { name: "New task" }).waitFor();
    for (const name of ["New project", "Edit project", "New milestone"])
      expect(await seen.getByRole("button", { name }).count(), name).toBe(0);
    expect(await seen.getByRole("navigation", { name: "Views" }).getByRole("button", { name: "Money" }).count()).toBe(0);
    await seen.getByRole("navigation", { name: "Views" }).getByRole("button", { name: "People" }).click();
    await seen.getByRole("row", { name: /Melba Roy/ }).waitFor();
    expect(await seen.getByRole("button", { name: "New person" }).count()).toBe(0);
    await expectAccessible(seen, "the people table, as a member");
    const refused = await asPerson(member.cookie, "/v1/projects", {
      body: { name: "Not mine to make", budget: 0, startDate: "2026-01-05", endDate: "2026-02-05" },
    });
    expect([refused.status, refused.body.error.code]).toEqual([403, "insufficient_scope"]);
    await seen.close();
  }, 120_000);
});
