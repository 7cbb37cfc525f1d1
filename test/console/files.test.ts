import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { signUp } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { expectAccessible } from "./axe.ts";
import { UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { call, form, openLiveConsole } from "./records-helpers.ts";

// A record's files in the console (components/files-panel.js): in the task drawer and in a risk's
// dialog, uploaded by the file picker and by a drop, with a progress bar, the SHA-256 computed in
// the page and checked by the API; images and PDFs previewed by their signed inline link; a delete
// that a second press confirms. Checked with axe-core.

useRoom();
const browser = useBrowser();

/** A 1x1 PNG, which the browser decodes. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("a record's files in the console", { timeout: 150_000 }, () => {
  it("uploads by the picker and by a drop with a progress bar, previews an image and a PDF, deletes after a confirm", async () => {
    const owner = await signUp({ name: "Mary Jackson", organisationName: "Langley Works" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Wind tunnel", budget: 5000, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" },
    });
    const person = await call(key, "/v1/personnel", { body: { name: "Kathryn Peddrew", email: "kathryn@example.test" } });
    const title = "Survey the tunnel roof";
    const task = await call(key, "/v1/tasks", { body: { title, projectId: project.id, dueDate: "2026-04-01", assigneeId: person.id } });

    const page = await openLiveConsole(browser(), owner);
    await page.getByRole("button", { name: title, exact: true }).click();
    const drawer = page.getByRole("dialog", { name: title });
    const files = drawer.getByRole("list", { name: "Files of this task" });
    await files.getByText("No files yet.").waitFor();

    // The progress bar's values as the upload reports them (the bar is gone once it is done).
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { progressSeen: number[] }).progressSeen = seen;
      new MutationObserver((changes) => {
        for (const change of changes)
          if (change.target instanceof HTMLProgressElement && change.attributeName === "value") seen.push(change.target.value);
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["value"] });
    });
    const notes = Buffer.alloc(3 * 1024 * 1024, "roof survey notes\n");
    await drawer.locator("#drawer-files input[type=file]").setInputFiles([
      { name: "snag.png", mimeType: "text/plain", buffer: PNG },
      { name: "notes.txt", mimeType: "text/plain", buffer: notes },
    ]);
    await files.getByText("notes.txt").waitFor();
    await files.getByText("snag.png").waitFor();
    const progress = await page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
    expect(progress).toContain(notes.byteLength);
    expect(Math.min(...progress.filter((v) => v > 0))).toBeLessThanOrEqual(notes.byteLength);

    // A drop on the panel.
    await drawer.locator("#drawer-files .drop-zone").evaluate(
      (zone, bytes) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(bytes)], "roof plan.pdf", { type: "application/octet-stream" }));
        zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
      },
      [...PDF],
    );
    await files.getByText("roof plan.pdf").waitFor();

    // What the API keeps: the sizes and SHA-256 the page computed, the types the bytes say.
    const kept = await call(key, `/v1/tasks/${task.id}/attachments`);
    expect(
      kept
        .map((f: { name: string; size: number; sha256: string; contentType: string }) => [f.name, f.size, f.sha256, f.contentType])
        .sort(),
    ).toEqual(
      [
        ["notes.txt", notes.byteLength, sha256(notes), "text/plain"],
        ["roof plan.pdf", PDF.byteLength, sha256(PDF), "application/pdf"],
        ["snag.png", PNG.byteLength, sha256(PNG), "image/png"],
      ].sort(),
    );
    // A text file has no preview; an image and a PDF do.
    expect(await drawer.getByRole("button", { name: "Preview notes.txt" }).count()).toBe(0);
    await drawer.getByRole("button", { name: "Preview snag.png" }).click();
    const image = drawer.getByRole("img", { name: "snag.png" });
    await image.waitFor();
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: UI_TIMEOUT_MS })
      .toBe(1);
    await expectAccessible(page, "the task drawer with its files and an image's preview");
    await drawer.getByRole("button", { name: "Preview roof plan.pdf" }).click();
    const frame = drawer.locator("iframe[title='Preview of roof plan.pdf']");
    await frame.waitFor();
    const link = (await frame.getAttribute("src"))!;
    expect(link).toContain("inline=true");
    const served = await fetch(link);
    expect([served.headers.get("content-type"), served.headers.get("content-disposition")]).toEqual([
      "application/pdf",
      `inline; filename="roof plan.pdf"; filename*=UTF-8''roof%20plan.pdf`,
    ]);

    // Delete asks first; keeping it keeps it.
    await drawer.getByRole("button", { name: "Delete snag.png" }).click();
    await drawer.getByRole("button", { name: "Keep it" }).click();
    await drawer.getByRole("button", { name: "Delete snag.png" }).click();
    await drawer.getByRole("button", { name: "Yes, delete snag.png" }).click();
    await files.getByText("snag.png").waitFor({ state: "detached" });
    expect((await call(key, `/v1/tasks/${task.id}/attachments`)).map((f: { name: string }) => f.name).sort()).toEqual([
      "notes.txt",
      "roof plan.pdf",
    ]);
  });

  it("a risk's dialog holds its files", async () => {
    const owner = await signUp({ name: "Dorothy Vaughan", organisationName: "West Computing" });
    const { key } = await keyWith(owner.orgId, ALL_SCOPES, { application: "Planning sync" });
    const project = await call(key, "/v1/projects", {
      body: { name: "Scout", budget: 0, startDate: "2026-01-05", endDate: "2026-12-30", status: "active" },
    });
    const risk = await call(key, "/v1/risks", { body: { projectId: project.id, title: "Crane unavailable" } });
    const page = await openLiveConsole(browser(), owner);
    await page.getByRole("navigation", { name: "Views" }).getByRole("button", { name: "Risks" }).click();
    await page.getByRole("button", { name: "Crane unavailable" }).click();
    const dialog = form(page, "Edit risk “Crane unavailable”");
    const files = dialog.getByRole("list", { name: "Files of this risk" });
    await files.getByText("No files yet.").waitFor();
    await dialog
      .locator("input[type=file]")
      .setInputFiles({ name: "method.txt", mimeType: "text/plain", buffer: Buffer.from("lift plan\n") });
    await files.getByText("method.txt").waitFor();
    expect((await call(key, `/v1/risks/${risk.id}/attachments`)).map((f: { name: string }) => f.name)).toEqual(["method.txt"]);
    await expectAccessible(page, "a risk's dialog with its files");
  });
});
