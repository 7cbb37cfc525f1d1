import { randomBytes } from "node:crypto";
import { chromium, type Browser, type Page } from "playwright-core";
import { median } from "./lib/load.ts";
import { printProfile, startProfile } from "./lib/profile.ts";
import { startBenchStack, type BenchStack } from "./lib/stack.ts";

// Issue 46's speed bars for the console, in Debian's Chromium (playwright-core) against the stack the
// tests use (a fresh database, the SQL endpoint, the Worker in workerd, `partykit dev`):
// (a) an organisation of 2,000 tasks (one project: the board's worst case), its board and its task
//     table "interactive" within 1.5 s of navigation; (b) an event from another window applied within
//     100 ms of its arrival at the page.
// "Interactive", measured in the page by an init script that checks the DOM on every animation frame
// from the document's start: the view holds every task (the board: every column with its count, the
// counts adding up to 2,000, and 2,000 cards; the table: "Showing 2000 of 2000", aria-rowcount 2,001
// and its first row, as it draws only the rows in view), and
// its first card's (row's) button takes the keyboard focus; the figure is the timestamp of the next
// frame (the one that paints it), from navigation start (performance.now()'s origin). Each run is a
// fresh browser context (no cache, no open socket). (b): the page's WebSocket is wrapped so a
// listener of the bench's, added before the console's, notes performance.now() when each message
// arrives; a MutationObserver notes when the task's card (row) first shows the new title, and the
// next frame. The events are title changes written through the API with a key, one at a time.
// Medians; the machine is shared, so the ratios to the bars are what a run says.
// Run: npm run bench:console [-- --runs=7 --events=20 --views=board,tasks --profile]   (embedded PGlite, or
// DATABASE_URL's server). --views= measures only the views named; --profile takes a CPU profile (Chromium's
// sampling profiler) of each view's last 2,000-task navigation and prints its functions by self time.

const TASKS = 2000;
/** The same pages with a project of 20 tasks, in the same runs: what the 2,000 cost beyond a page's floor. */
const SMALL = 20;
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const RUNS = arg("runs", 7);
const EVENTS = arg("events", 20);
const VIEWS = (process.argv.find((a) => a.startsWith("--views="))?.split("=")[1] ?? "board,tasks").split(",") as ("board" | "tasks")[];
const PROFILE = process.argv.includes("--profile");
const BAR_INTERACTIVE_MS = 1500;
const BAR_APPLIED_MS = 100;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CLIENT_ADDRESS = "2001:db8:46::46";

async function send(
  stack: BenchStack,
  path: string,
  init: { method?: string; body?: unknown; cookie?: string; key?: string } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a bench reads a few known fields of the API's own answers
): Promise<any> {
  const headers: Record<string, string> = { origin: stack.workerUrl, "cf-connecting-ip": CLIENT_ADDRESS };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (init.cookie) headers.cookie = init.cookie;
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  const response = await fetch(stack.workerUrl + path, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${path}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** An owner signed up through the API, a key of theirs, and one project of 2,000 tasks. */
async function setUp(stack: BenchStack) {
  const signUp = await fetch(`${stack.workerUrl}/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: stack.workerUrl, "cf-connecting-ip": CLIENT_ADDRESS },
    body: JSON.stringify({
      email: `bench-${randomBytes(6).toString("hex")}@example.com`,
      password: `pw-${randomBytes(8).toString("hex")}`,
      name: "Bench",
    }),
  });
  if (!signUp.ok) throw new Error(`sign-up: ${signUp.status} ${await signUp.text()}`);
  const cookie = signUp.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .join("; ");
  const orgId = (await send(stack, "/v1/settings/session", { cookie })).data.organisation.id as string;
  const scopes = ["tasks.manage", "projects.manage", "organisation.manage"];
  const key = (await send(stack, "/v1/settings/api-keys", { body: { name: "bench", scopes, rateLimit: 100_000 }, cookie })).data
    .key as string;
  const newProject = async (name: string) =>
    (await send(stack, "/v1/projects", { key, body: { name, budget: 0, startDate: "2026-01-01", endDate: "2026-12-31" } })).data
      .id as string;
  const projects: Record<number, string> = { [TASKS]: await newProject("Wind tunnel"), [SMALL]: await newProject("Bench shop") };
  const person = (await send(stack, "/v1/personnel", { key, body: { name: "Katherine Johnson", email: "kj@example.com" } })).data;
  // Straight into the database (as the tests' fixtures and bench/lib/data.ts load): 2,000 at once.
  // Statuses spread as a working project's are; the events written later go through the API.
  for (const [size, projectId] of Object.entries(projects))
    await stack.db.query(
      `insert into tasks (id, org_id, project_id, assignee_id, title, status, priority, due_date, created_at)
     select gen_random_uuid(), $1, $2, $3, 'Task ' || i,
            (array['todo','todo','in_progress','blocked','done','cancelled'])[1 + i % 6],
            (array['low','medium','high'])[1 + i % 3], date '2026-06-01' + (i % 90), clock_timestamp()
       from generate_series(1, $4::int) i`,
      [orgId, projectId, person.id, Number(size)],
    );
  const counts = (await send(stack, `/v1/tasks/counts?projectId=${projects[TASKS]}`, { key })).data;
  if (counts.total !== TASKS) throw new Error(`the project holds ${counts.total} tasks, not ${TASKS}`);
  return { cookie, key, projects };
}

/**
 * Runs in the page before its own scripts: the interactive check on every frame, and the socket's
 * arrivals with the DOM changes they led to. Serialised into the page, so self-contained.
 */
function instrument({ view, tasks }: { view: "board" | "tasks"; tasks: number }) {
  const w = window as unknown as Record<string, unknown>;
  const numbers = (selector: string) =>
    [...document.querySelectorAll(selector)].reduce((sum, node) => sum + Number(/^\d+/.exec(node.textContent ?? "")?.[0] ?? NaN), 0);
  const ready = () => {
    if (view === "board") {
      const columns = document.querySelectorAll("#columns .column");
      if (columns.length === 0 || numbers("#columns .column h3 span") !== tasks) return null;
      if (document.querySelectorAll("#columns .card").length !== tasks) return null;
      return document.querySelector<HTMLElement>("#columns .card .card-open");
    }
    const count = document.querySelector("#table-view .table-count")?.textContent ?? "";
    if (!count.startsWith(`Showing ${tasks} of ${tasks} `)) return null;
    // Every row counted (aria-rowcount, the header's row included) or every row drawn: a table of more
    // than 200 rows draws those in view as it is scrolled (record-table.js), an older one drew them all.
    const rowCount = document.querySelector("#table-view table")?.getAttribute("aria-rowcount");
    if (rowCount !== String(tasks + 1) && document.querySelectorAll("#table-view tbody tr").length !== tasks) return null;
    return document.querySelector<HTMLElement>("#table-view tbody tr[data-id] button");
  };
  const poll = () => {
    const target = ready();
    if (target) {
      target.focus();
      if (document.activeElement === target) {
        // When the last page of the project's tasks (GET /v1/tasks?projectId=) had arrived: what
        // came after it is the page's own work on them.
        const lists = performance
          .getEntriesByType("resource")
          .filter((entry) => /\/v1\/tasks\?projectId=/.test(entry.name)) as PerformanceResourceTiming[];
        w.__tasksInAt = Math.max(...lists.map((entry) => entry.responseEnd));
        return requestAnimationFrame(() => (w.__interactiveAt = performance.now()));
      }
    }
    requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);

  type Arrival = { id: string; title: string; arrivedAt: number; domAt?: number; frameAt?: number };
  const arrivals: Arrival[] = [];
  w.__arrivals = arrivals;
  const Native = window.WebSocket;
  class Timed extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      // Added before the console's own listener, so it runs first: the moment of arrival.
      this.addEventListener("message", ({ data }) => {
        const arrivedAt = performance.now();
        const message = JSON.parse(String(data));
        if (message.type === "task.updated" && message.data?.title)
          arrivals.push({ id: message.data.id, title: message.data.title, arrivedAt });
      });
    }
  }
  window.WebSocket = Timed;
  new MutationObserver(() => {
    const now = performance.now();
    for (const arrival of arrivals) {
      if (arrival.domAt !== undefined) continue;
      const node = document.querySelector(`[data-id="${CSS.escape(arrival.id)}"]`);
      if (node?.textContent?.includes(arrival.title)) {
        arrival.domAt = now;
        requestAnimationFrame(() => (arrival.frameAt = performance.now()));
      }
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

async function openPage(browser: Browser, stack: BenchStack, cookie: string, view: "board" | "tasks", tasks: number) {
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    extraHTTPHeaders: { "cf-connecting-ip": CLIENT_ADDRESS },
  });
  await context.addCookies(
    cookie.split("; ").map((pair) => {
      const at = pair.indexOf("=");
      return { name: pair.slice(0, at), value: pair.slice(at + 1), url: stack.workerUrl };
    }),
  );
  // As source: tsx (esbuild's keepNames) wraps named functions in a helper, __name, the page lacks.
  await context.addInitScript({
    content: `var __name = (f) => f; (${instrument.toString()})(${JSON.stringify({ view, tasks })});`,
  });
  const page = await context.newPage();
  // Generous: on the shared 2-core machine a page under load has taken more than a minute to load.
  page.setDefaultTimeout(180_000);
  page.on("pageerror", (error) => console.error(`console page error: ${error.message}`));
  return { context, page };
}

/** Navigation start to interactive (ms), and to the room's "Live" for context. */
async function navigate(page: Page, url: string) {
  await page.goto(url);
  const interactive = await page.waitForFunction(() => (window as unknown as Record<string, number>).__interactiveAt, undefined, {
    polling: 100,
  });
  const interactiveAt = (await interactive.jsonValue()) as number;
  await page.waitForFunction(() => document.querySelector("#connection-text")?.textContent?.startsWith("Live"), undefined, { polling: 50 });
  const liveAt = await page.evaluate(() => performance.now());
  const tasksInAt = await page.evaluate(() => (window as unknown as Record<string, number>).__tasksInAt!);
  return { interactiveAt, liveAt, afterTasks: interactiveAt - tasksInAt };
}

/** EVENTS title changes through the API, one at a time: each one's arrival to the DOM showing it. */
async function applyEvents(page: Page, stack: BenchStack, key: string, projectId: string, view: "board" | "tasks") {
  // The table's rows in view (it draws no others); any of the board's (it draws every card).
  const ids = (
    view === "tasks"
      ? await page.evaluate(
          (n) => [...document.querySelectorAll("#table-view tbody tr[data-id]")].slice(0, n).map((row) => row.getAttribute("data-id")!),
          EVENTS,
        )
      : (await send(stack, `/v1/tasks?projectId=${projectId}&limit=${EVENTS}`, { key })).data.map((t: { id: string }) => t.id)
  ) as string[];
  for (let i = 0; i < EVENTS; i++) {
    const title = `Renamed ${randomBytes(4).toString("hex")}`;
    await send(stack, `/v1/tasks/${ids[i % ids.length]}`, { key, method: "PATCH", body: { title } });
    await page.waitForFunction(
      (t) =>
        ((window as unknown as { __arrivals: { title: string; frameAt?: number }[] }).__arrivals ?? []).some(
          (a) => a.title === t && a.frameAt !== undefined,
        ),
      title,
      { polling: 50 },
    );
  }
  const arrivals = await page.evaluate(
    () => (window as unknown as { __arrivals: { arrivedAt: number; domAt: number; frameAt: number }[] }).__arrivals,
  );
  return { dom: arrivals.map((a) => a.domAt - a.arrivedAt), frame: arrivals.map((a) => a.frameAt - a.arrivedAt) };
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
const ratio = (n: number, bar: number) => `${(n / bar).toFixed(2)}× the bar (${bar} ms)`;

async function main() {
  const stack = await startBenchStack({ realtime: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const { cookie, key, projects } = await setUp(stack);
    console.log(
      `console speed: ${stack.databaseLabel}, a project of ${TASKS} tasks beside one of ${SMALL}, ${RUNS} runs a view, ${EVENTS} events`,
    );
    for (const view of VIEWS) {
      const name = view === "board" ? "board" : "task table";
      const interactive: Record<number, number[]> = { [TASKS]: [], [SMALL]: [] };
      const live: Record<number, number[]> = { [TASKS]: [], [SMALL]: [] };
      const afterTasks: Record<number, number[]> = { [TASKS]: [], [SMALL]: [] };
      const applied: Record<number, { dom: number[]; frame: number[] }> = {};
      // One run first to warm the Worker and the database (not counted), then RUNS fresh contexts of
      // each size, the order alternating; the last of each takes the events.
      for (let run = 0; run <= RUNS; run++) {
        for (const size of run % 2 ? [TASKS, SMALL] : [SMALL, TASKS]) {
          const { context, page } = await openPage(browser, stack, cookie, view, size);
          const profiler = PROFILE && run === RUNS && size === TASKS ? await startProfile(page) : null;
          const times = await navigate(page, `${stack.workerUrl}/?project=${projects[size]}${view === "tasks" ? "&view=tasks" : ""}`);
          if (profiler) await printProfile(profiler, `${view}, ${TASKS} tasks, navigation to interactive`);
          if (run > 0) {
            interactive[size]!.push(times.interactiveAt);
            live[size]!.push(times.liveAt);
            afterTasks[size]!.push(times.afterTasks);
          }
          if (run === RUNS) applied[size] = await applyEvents(page, stack, key, projects[size]!, view);
          await context.close();
        }
      }
      const at = (size: number) => median(interactive[size]!);
      console.log(
        `${name}, ${TASKS} tasks: navigation to interactive ${ms(at(TASKS))}, ${ratio(at(TASKS), BAR_INTERACTIVE_MS)}, ${(at(TASKS) / at(SMALL)).toFixed(2)}× the ${SMALL}-task page's ${ms(at(SMALL))}; runs ${interactive[TASKS]!.map((n) => n.toFixed(0)).join(", ")} ms; after the tasks' last page arrived ${ms(median(afterTasks[TASKS]!))} (${SMALL} tasks: ${ms(median(afterTasks[SMALL]!))}); to "Live" ${ms(median(live[TASKS]!))} (${SMALL} tasks: ${ms(median(live[SMALL]!))})`,
      );
      const [dom, frame, smallFrame] = [median(applied[TASKS]!.dom), median(applied[TASKS]!.frame), median(applied[SMALL]!.frame)];
      console.log(
        `${name}, ${TASKS} tasks: an event applied, arrival to the DOM ${ms(dom)}, ${ratio(dom, BAR_APPLIED_MS)}; to the next frame ${ms(frame)}, ${ratio(frame, BAR_APPLIED_MS)}, ${(frame / smallFrame).toFixed(1)}× the ${SMALL}-task page's ${smallFrame.toFixed(1)} ms (${ratio(smallFrame, BAR_APPLIED_MS)}); max ${ms(Math.max(...applied[TASKS]!.frame))}, n=${applied[TASKS]!.frame.length}`,
      );
    }
  } finally {
    await browser.close();
    await stack.close();
  }
}

await main();
process.exit(0);
