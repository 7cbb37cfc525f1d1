import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page, WebSocketRoute } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TASK_TRANSITIONS } from "../../domain/records.ts";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { workerUrl } from "../helpers/api.ts";
import { insertPerson, insertProject, insertTask, keyWith } from "../helpers/fixtures.ts";
import { signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { launchBrowser, openPage, UI_TIMEOUT_MS } from "./browser.ts";

// The live console (console/, served by the Worker at /) and the API reference (/docs) in a real
// browser: Debian's Chromium driven by playwright-core, against the harness's Worker and its real
// PartyKit room. The console works as a person signed in (the session cookie; no key in the page),
// and joins the room with a token minted with that session. Two consoles of one organisation: a
// move in one reaches the other through the realtime event alone. Lost connections are made in
// the browser (routeWebSocket), so the shared realtime server is never stopped under other files.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ARTIFACTS = `${ROOT}test/artifacts/`;
const TSC = `${ROOT}node_modules/typescript/bin/tsc`;
const LIVE_TIMEOUT_MS = UI_TIMEOUT_MS;

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

interface BoardOrganisation {
  owner: Person;
  /** An API key of the organisation: the other side of the tests' changes. */
  key: string;
  tasks: Record<string, string>;
}

/** An owner signed up, a project and tasks in several states written straight to the database (no events). */
async function boardOrganisation(): Promise<BoardOrganisation> {
  const owner = await signUp({ name: "Grace Hopper", organisationName: "Riverside Builds" });
  const key = (await keyWith(owner.orgId, ALL_SCOPES, { application: "Site tablet" })).key;
  const person = await insertPerson(owner.orgId, { name: "Priya Raman" });
  const project = await insertProject(owner.orgId, { name: "Riverside House office fit-out", status: "active" });
  const plan = [
    ["Order the cable trays", "todo", "high"],
    ["Strip out the old partitions", "done", "medium"],
    ["Book the scaffold", "in_progress", "urgent"],
    ["Survey the roof", "blocked", "low"],
    ["Agree the kitchen layout", "todo", "medium"],
  ] as const;
  const tasks: Record<string, string> = {};
  for (const [title, status, priority] of plan) {
    tasks[title] = (await insertTask(owner.orgId, { projectId: project.id, assigneeId: person.id, title, status, priority })).id;
  }
  return { owner, key, tasks };
}

/** The board, signed in as `person` (their session cookie), once it is live. */
async function openConsole(person: Person, options: { route?: (ws: WebSocketRoute) => void } = {}): Promise<Page> {
  const page = await openPage(browser, { as: person });
  if (options.route) await page.routeWebSocket(/\/parties\/v1\//, options.route);
  await page.goto(`${origin}/`);
  await expectConnection(page, /^Live/);
  return page;
}
const expectConnection = (page: Page, text: RegExp) =>
  expect.poll(() => page.locator("#connection-text").textContent(), { timeout: LIVE_TIMEOUT_MS }).toMatch(text);

const card = (page: Page, status: string, title: string) => page.locator(`.column[data-status="${status}"] .card`, { hasText: title });

async function patchTask(key: string, id: string, status: string): Promise<number> {
  const response = await fetch(`${origin}/v1/tasks/${id}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ status }),
  });
  return response.status;
}

describe("the API reference at /docs", { timeout: 60_000 }, () => {
  it("renders the guide and the operations from this origin alone (works offline)", async () => {
    const page = await openPage(browser);
    const foreign: string[] = [];
    await page.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.origin === origin) return route.continue();
      foreign.push(url.href);
      return route.abort();
    });
    await page.goto(`${origin}/docs`);
    // The guide (info.description) opens the page; operations render when their tag is opened.
    // Parsing Scalar's 4 MB script takes a while on a busy 2-core machine.
    await page.getByRole("heading", { name: "The envelope" }).waitFor({ timeout: 45_000 });
    await page.getByText("idempotency_mismatch").first().waitFor();
    await page.getByRole("link", { name: "Tasks", exact: true }).first().click();
    await page.getByText("List tasks: filtered, searched, sorted and paged").first().waitFor();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}api-reference.png` });
    expect(foreign, "requests to other origins").toEqual([]);
    await page.close();
  });
});

describe("the live console", { timeout: 60_000 }, () => {
  it("type-checks: its plain JavaScript against its JSDoc types (tsc -p console)", () => {
    const check = spawnSync(process.execPath, [TSC, "-p", "console"], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(check.stdout + check.stderr).toBe("");
    expect(check.status).toBe(0);
  });

  it("offers exactly the API's workflow moves", async () => {
    // The console is plain browser JavaScript, outside the TypeScript project: imported by URL.
    const consoleWorkflow = (await import(new URL("../../console/js/lib/workflow.js", import.meta.url).href)) as {
      TASK_TRANSITIONS: unknown;
    };
    expect(consoleWorkflow.TASK_TRANSITIONS).toEqual(TASK_TRANSITIONS);
  });

  it("without a session, sends the browser to sign in; a key in the address (#key=) is no way in", async () => {
    const { key } = await boardOrganisation();
    const page = await openPage(browser);
    const calls: string[] = [];
    page.on("request", (request) =>
      calls.push(`${request.method()} ${new URL(request.url()).pathname} ${request.headers().authorization ?? ""}`),
    );
    await page.goto(`${origin}/#key=${key}`);
    await page.waitForURL(/\/sign-in(\.html)?\?next=%2F$/);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(
      calls.filter((call) => call.startsWith("GET /v1") || call.includes("Bearer")),
      "the console asked who is signed in, and never used the key",
    ).toEqual(["GET /v1/settings/session "]);
    await page.close();
  });

  it("shows who is signed in, with Settings and Sign out; joins the room with a token minted with the session", async () => {
    const { owner } = await boardOrganisation();
    const page = await openPage(browser, { as: owner });
    const sockets: string[] = [];
    page.on("websocket", (socket) => sockets.push(socket.url()));
    await page.goto(`${origin}/`);
    await expectConnection(page, /^Live/);
    // The room is joined with a short-lived token minted with the session, never a key.
    expect(sockets).toHaveLength(1);
    expect(new URL(sockets[0]!).searchParams.get("token")).toMatch(/\S+\.\S+/);
    expect(new URL(sockets[0]!).searchParams.has("apiKey")).toBe(false);
    const account = page.getByRole("navigation", { name: "Account" });
    await expect.poll(() => account.textContent()).toContain("Signed in as Grace Hopper · Owner");
    expect(await page.locator("#organisation").textContent()).toBe("Riverside Builds");
    expect(await account.getByRole("link", { name: "Settings" }).getAttribute("href")).toBe("/settings.html");
    await account.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in(\.html)?$/);
    await page.goto(`${origin}/`);
    await page.waitForURL(/\/sign-in(\.html)?\?next=%2F$/);
    await page.close();
  });

  it("moves a task in one console and the other follows from the realtime event, without refetching", async () => {
    const { owner } = await boardOrganisation();
    const [mover, watcher] = [await openConsole(owner), await openConsole(owner)];
    await expect.poll(() => card(watcher, "todo", "Order the cable trays").count(), { timeout: LIVE_TIMEOUT_MS }).toBe(1);
    const watcherRequests: string[] = [];
    watcher.on("request", (request) => watcherRequests.push(new URL(request.url()).pathname));

    // Keyboard only: focus the move button and press Enter.
    const started = performance.now();
    await mover.getByRole("button", { name: "Move “Order the cable trays” to In progress" }).focus();
    await mover.keyboard.press("Enter");

    await card(watcher, "in_progress", "Order the cable trays").waitFor({ timeout: LIVE_TIMEOUT_MS });
    console.log(`[console] move seen in the other console after ${Math.round(performance.now() - started)} ms`);
    expect(await card(watcher, "todo", "Order the cable trays").count()).toBe(0);
    await card(mover, "in_progress", "Order the cable trays").waitFor();
    await expect
      .poll(() => watcher.locator("#event-list li").first().textContent(), { timeout: LIVE_TIMEOUT_MS })
      .toMatch(/task\.updated.*live.*by Grace Hopper.*status: todo → in_progress/s);
    expect(watcherRequests, "the watcher changed its board from the event alone").toEqual([]);

    mkdirSync(ARTIFACTS, { recursive: true });
    await watcher.screenshot({ path: `${ARTIFACTS}console-live-board.png`, fullPage: true });
    await Promise.all([mover.close(), watcher.close()]);
  });

  it("shows the API's 409 when a move is no longer allowed", async () => {
    const { owner, key, tasks } = await boardOrganisation();
    // The console's socket is held back, so it does not learn that the task was cancelled meanwhile.
    let deaf = false;
    const page = await openConsole(owner, {
      route(ws) {
        const server = ws.connectToServer();
        server.onMessage((message) => (deaf ? undefined : ws.send(message)));
        ws.onMessage((message) => server.send(message));
      },
    });
    deaf = true;
    expect(await patchTask(key, tasks["Agree the kitchen layout"]!, "cancelled")).toBe(200);

    await page.getByRole("button", { name: "Move “Agree the kitchen layout” to In progress" }).click();
    const notice = page.locator("#notice");
    await expect
      .poll(() => notice.textContent(), { timeout: LIVE_TIMEOUT_MS })
      .toBe(
        "“Agree the kitchen layout” was not moved to In progress: it is Cancelled now, and can move only to To do. (409 invalid_transition)",
      );
    expect(await notice.getAttribute("role")).toBe("alert");
    expect(await card(page, "todo", "Agree the kitchen layout").getAttribute("class")).toContain("refused");
    await page.close();
  });

  it("says when it is disconnected and catches up from GET /v1/events when it is back", async () => {
    const { owner, key, tasks } = await boardOrganisation();
    let blocked = false;
    const sockets: WebSocketRoute[] = [];
    const page = await openConsole(owner, {
      route(ws) {
        if (blocked) return void ws.close({ code: 1011, reason: "test: network down" });
        sockets.push(ws);
        ws.connectToServer();
      },
    });
    blocked = true;
    for (const ws of sockets) await ws.close({ code: 1006, reason: "test: network down" });
    await expectConnection(page, /^Disconnected, reconnecting/);

    expect(await patchTask(key, tasks["Survey the roof"]!, "in_progress")).toBe(200);
    blocked = false;
    await expectConnection(page, /^Live · caught up on 1 event/);
    await card(page, "in_progress", "Survey the roof").waitFor();
    await expect
      .poll(() => page.locator("#event-list li").first().textContent(), { timeout: LIVE_TIMEOUT_MS })
      .toMatch(/task\.updated.*catch-up.*by API key Site tablet.*status: blocked → in_progress/s);
    await page.close();
  });
});
