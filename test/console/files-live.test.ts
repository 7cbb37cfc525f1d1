import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { api } from "../helpers/api.ts";
import { upload } from "../helpers/attachments.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { signUp } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { expectAccessible } from "./axe.ts";
import { useBrowser } from "./browser.ts";
import { call, openLiveConsole } from "./records-helpers.ts";

// Files that follow the room (components/files-panel.js with the store): a file attached or
// removed in one window shows in another at once, without a reload; a comment's files are shown
// under it, and a person attaches files to the comment they write (components/task-comments.js).
// Checked with axe-core.

useRoom();
const browser = useBrowser();

describe("files in the console, live", { timeout: 150_000 }, () => {
  it("a file attached in one window appears in a second without a reload, and goes from it when deleted", async () => {
    const owner = await signUp({ name: "Christine Darden", organisationName: "Sonic Boom Works" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Boom", budget: 100, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" },
    });
    const title = "Shape the wing";
    const person = await call(key, "/v1/personnel", { body: { name: "Dorothy Hoover", email: `dorothy-${project.id}@example.test` } });
    const task = await call(key, "/v1/tasks", { body: { title, projectId: project.id, dueDate: "2026-05-01", assigneeId: person.id } });

    const [first, second] = [await openLiveConsole(browser(), owner), await openLiveConsole(browser(), owner)];
    const drawerOf = async (page: typeof first) => {
      await page.getByRole("button", { name: title, exact: true }).click();
      const drawer = page.getByRole("dialog", { name: title });
      const files = drawer.getByRole("list", { name: "Files of this task" });
      await files.getByText("No files yet.").waitFor();
      return { drawer, files };
    };
    const one = await drawerOf(first);
    const two = await drawerOf(second);
    const reloads = await second.evaluate(() => performance.getEntriesByType("navigation").length);

    await one.drawer
      .locator("#drawer-files input[type=file]")
      .setInputFiles({ name: "wing.txt", mimeType: "text/plain", buffer: Buffer.from("sweep 45 degrees\n") });
    await one.files.getByText("wing.txt").waitFor();
    await two.files.getByText("wing.txt").waitFor();
    expect(await two.files.getByText("No files yet.").count()).toBe(0);

    // Another's upload (a key's) and a delete show in both.
    expect((await upload(key, `/v1/tasks/${task.id}/attachments`, new TextEncoder().encode("ribs\n"), { name: "ribs.txt" })).status).toBe(
      201,
    );
    await one.files.getByText("ribs.txt").waitFor();
    await two.files.getByText("ribs.txt").waitFor();
    await one.drawer.getByRole("button", { name: "Delete wing.txt" }).click();
    await one.drawer.getByRole("button", { name: "Yes, delete wing.txt" }).click();
    await two.files.getByText("wing.txt").waitFor({ state: "detached" });
    expect(await two.files.locator(".file").allTextContents()).toEqual([expect.stringContaining("ribs.txt")]);
    // Never reloaded: the same document all along.
    expect(await second.evaluate(() => performance.getEntriesByType("navigation").length)).toBe(reloads);
    await expectAccessible(second, "the task drawer whose files another window changed");
  });

  it("a comment shows its files; a person attaches files to the comment they write, and another window sees them", async () => {
    const owner = await signUp({ name: "Mary Winston Jackson", organisationName: "Tunnel Works" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Tunnel", budget: 100, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" },
    });
    const title = "Calibrate the balance";
    const person = await call(key, "/v1/personnel", { body: { name: "Dorothy Hoover", email: `dorothy-${project.id}@example.test` } });
    const task = await call(key, "/v1/tasks", { body: { title, projectId: project.id, dueDate: "2026-05-01", assigneeId: person.id } });
    // A comment with a file, made before the console opens.
    const comment = await call(key, `/v1/tasks/${task.id}/comments`, { body: { body: "Readings attached." } });
    expect(
      (await upload(key, `/v1/comments/${comment.id}/attachments`, new TextEncoder().encode("1.02\n"), { name: "readings.csv" })).status,
    ).toBe(201);

    const [first, second] = [await openLiveConsole(browser(), owner), await openLiveConsole(browser(), owner)];
    for (const page of [first, second]) await page.getByRole("button", { name: title, exact: true }).click();
    const [one, two] = [first.getByRole("dialog", { name: title }), second.getByRole("dialog", { name: title })];
    /** The files list of the comment that says `text`. */
    const commentFiles = (drawer: typeof one, text: string) =>
      drawer
        .locator(".comment")
        .filter({ hasText: text })
        .getByRole("list", { name: /^Files of .*'s comment$/ });
    await commentFiles(one, "Readings attached.").getByText("readings.csv").waitFor();
    // Not the author: no way to add to the key's comment.
    expect(await one.locator(".comment .drop-zone").count()).toBe(0);

    await one.getByLabel("Add a comment").fill("Balance drift photo.");
    await one.getByLabel("Attach files").setInputFiles([
      { name: "drift.txt", mimeType: "text/plain", buffer: Buffer.from("drift 0.3%\n") },
      { name: "setup.txt", mimeType: "text/plain", buffer: Buffer.from("setup\n") },
    ]);
    await one.getByRole("button", { name: "Comment", exact: true }).click();
    const mine = commentFiles(one, "Balance drift photo.");
    await mine.getByText("drift.txt").waitFor();
    await mine.getByText("setup.txt").waitFor();
    const seen = commentFiles(two, "Balance drift photo.");
    await seen.getByText("drift.txt").waitFor();
    await seen.getByText("setup.txt").waitFor();

    // What the API keeps: the two files on the new comment.
    const comments = await call(key, `/v1/tasks/${task.id}/comments`);
    const written = comments.find((c: { body: string }) => c.body === "Balance drift photo.");
    const kept = await call(key, `/v1/comments/${written.id}/attachments`);
    expect(kept.map((f: { name: string }) => f.name).sort()).toEqual(["drift.txt", "setup.txt"]);
    expect((await api(`/v1/comments/${written.id}/attachments`, { key })).status).toBe(200);
    await expectAccessible(first, "the task drawer with a comment's files");
  });
});
