import { readFile } from "node:fs/promises";
import type { Page, Response } from "playwright-core";
import { describe, expect, it } from "vitest";
import { UI_TIMEOUT_MS, useBrowser } from "../console/browser.ts";
import { api, expectSuccess, testClientAddress, workerUrl } from "../helpers/api.ts";
import { upload } from "../helpers/attachments.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { insertTaskIn } from "../helpers/work.ts";

// An uploaded HTML or SVG file never runs script in opsroom's origin (docs/attachments.md
// "Downloads"), checked in Chromium on the Worker's own origin. Two layers, each on its own:
// Content-Disposition: attachment makes the browser save the file rather than show it; and were
// it shown anyway (the disposition stripped here, as a careless proxy or an old browser might),
// the sandboxing CSP gives it an opaque origin with no script, and nosniff keeps its type. The
// files' script would set a global, change the title, mark the document and open a dialog; a
// control (the same bytes with neither header) shows the test sees script when it runs.

const browser = useBrowser();

const MARK = `window.__opsroomRan = true; document.title = "RAN"; document.documentElement.setAttribute("data-ran", "1"); alert("ran");`;
const HTML = `<!doctype html><html><head><title>invoice</title><script>${MARK}</script></head><body><img src="x" onerror='${MARK}'><p>invoice</p></body></html>`;
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" onload='${MARK}' width="10" height="10"><title>plan</title><script>${MARK}</script><rect width="10" height="10"/></svg>`;

interface Seen {
  dialogs: string[];
  ran: unknown;
  title: string;
  marked: string | null;
}

/** What a document shows of script having run in it. */
async function seenIn(page: Page, dialogs: string[]): Promise<Seen> {
  await page.waitForLoadState("load");
  const [ran, title, marked] = await page.evaluate(() => [
    (window as unknown as { __opsroomRan?: boolean }).__opsroomRan,
    document.title,
    document.documentElement.getAttribute("data-ran"),
  ]);
  return { dialogs: [...dialogs], ran, title: String(title), marked: marked as string | null };
}

async function pageOnOrigin() {
  const context = await browser().newContext({ acceptDownloads: true, extraHTTPHeaders: { "cf-connecting-ip": testClientAddress() } });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  // A page of opsroom's origin first: the file is opened from there.
  await page.goto(new URL("/v1/openapi.json", workerUrl()).toString());
  return { page, dialogs, context };
}

describe("an uploaded HTML or SVG file, opened by its download link", () => {
  it.each([
    ["invoice.html", HTML, "text/html"],
    ["plan.svg", SVG, "image/svg+xml"],
  ])("%s is saved, not shown; shown anyway, it runs no script; the control runs", async (name, source, type) => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const bytes = new TextEncoder().encode(source);
    const file = expectSuccess(await upload(tenant.key, `/v1/tasks/${task}/attachments`, bytes, { name }), 201).data;
    expect(file.contentType).toBe(type);
    // Asked for inline, a file that is no image or PDF still downloads.
    const link = expectSuccess(await api(`/v1/tasks/${task}/attachments/${file.id}?inline=true`, { key: tenant.key })).data.downloadUrl;
    expect(link).not.toContain("inline=true");

    const { page, dialogs, context } = await pageOnOrigin();
    // 1. Opened: a download, the page stays where it was.
    const [download] = await Promise.all([page.waitForEvent("download"), page.goto(link).catch(() => null)]);
    expect(download.suggestedFilename()).toBe(name);
    expect(await readFile((await download.path())!, "utf8")).toBe(source);
    expect(await seenIn(page, dialogs)).toEqual({ dialogs: [], ran: undefined, title: "", marked: null });

    // 2. Shown anyway (the disposition stripped on the way): the CSP's sandbox holds.
    await page.route("**/v1/attachments/**", async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers["content-disposition"];
      await route.fulfill({ response, headers });
    });
    const served: Response | null = await page.goto(link);
    const headers = served!.headers();
    expect(headers["content-type"]).toBe(type);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["content-security-policy"]).toMatch(/^sandbox; default-src 'none'/);
    const shown = await seenIn(page, dialogs);
    expect(shown).toMatchObject({ dialogs: [], ran: undefined, marked: null });
    expect(shown.title).not.toBe("RAN");
    // The document has an opaque origin: it cannot read opsroom's cookies or storage.
    expect(await page.evaluate(() => self.origin)).toBe("null");

    // 3. The control: the same bytes with neither header, on the same origin, do run.
    await page.unroute("**/v1/attachments/**");
    await page.route("**/v1/attachments/**", (route) => route.fulfill({ status: 200, contentType: type, body: source }));
    await page.goto(link);
    const control = await seenIn(page, dialogs);
    expect(control.ran).toBe(true);
    expect(control.dialogs.length).toBeGreaterThan(0);
    await context.close();
  });

  it("the download answer itself says so, whatever the link asked", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const file = expectSuccess(
      await upload(tenant.key, `/v1/tasks/${task}/attachments`, new TextEncoder().encode(SVG), { name: "plan.svg" }),
      201,
    ).data;
    const link = expectSuccess(await api(`/v1/tasks/${task}/attachments/${file.id}`, { key: tenant.key })).data.downloadUrl;
    const response = await fetch(link);
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="plan.svg"/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toContain("sandbox");
    expect(response.headers.get("content-security-policy")).not.toMatch(/allow-scripts|script-src/);
  });
});
