import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { memberOf, signUp } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { expectAccessible } from "./axe.ts";
import { UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { call, openLiveConsole } from "./records-helpers.ts";

// My work: the tasks assigned to the person the signed-in member is (GET /v1/tasks?assigneeId=me),
// in every project, live; a member linked to no person is told why the list is empty.

useRoom();
const browser = useBrowser();

describe("My work", () => {
  it("lists the member's own tasks of every project, and one assigned to them elsewhere arrives live", async () => {
    const owner = await signUp({ name: "Evelyn Boyd", organisationName: "Granville Plant" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const member = await memberOf(owner, "member");
    const dates = { budget: 0, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" };
    const [north, south] = [
      await call(key, "/v1/projects", { body: { name: "North yard", ...dates } }),
      await call(key, "/v1/projects", { body: { name: "South yard", ...dates } }),
    ];
    // The accepted invitation made the member a person of the organisation.
    const people = await call(key, "/v1/personnel");
    const me = people.find((p: { email: string }) => p.email === member.email);
    const other = await call(key, "/v1/personnel", { body: { name: "Gladys West", email: "gladys@example.test" } });
    const task = (title: string, projectId: string, assigneeId: string) =>
      call(key, "/v1/tasks", { body: { title, projectId, assigneeId, dueDate: "2026-05-01" } });
    await task("Grease the north crane", north.id, me.id);
    await task("Paint the south gate", south.id, me.id);
    await task("Count the pallets", north.id, other.id);

    const page = await openLiveConsole(browser(), member, "/?view=mine");
    const table = page.getByRole("table", { name: "Tasks assigned to you, in every project" });
    const titles = () => table.locator("tbody th").allTextContents();
    await expect.poll(titles, { timeout: UI_TIMEOUT_MS }).toEqual(["Grease the north crane", "Paint the south gate"]);
    expect(await table.getByRole("row", { name: /Paint the south gate/ }).textContent()).toContain("South yard");
    await expectAccessible(page, "My work");
    await task("Oil the south hinges", south.id, me.id);
    await expect
      .poll(titles, { timeout: UI_TIMEOUT_MS })
      .toEqual(["Grease the north crane", "Oil the south hinges", "Paint the south gate"]);
    await page.close();

    // The owner signed up without being anyone's person: told so, not shown an empty table silently.
    const owners = await openLiveConsole(browser(), owner, "/?view=mine");
    await expect
      .poll(() => owners.getByRole("alert").filter({ hasText: "My work could not be listed" }).textContent(), { timeout: UI_TIMEOUT_MS })
      .toMatch(/you are not linked to a person of the organisation/);
    await owners.close();
  }, 120_000);
});
