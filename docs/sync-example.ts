// Keeps a mirror of an organisation's tasks exactly in step with opsroom: the recipe of docs/sync.md.
//
//   npx tsx docs/sync-example.ts --api http://127.0.0.1:8787 --key ops_... [--exclude-own]
//
// It prints one JSON line each time the mirror changes: { changeVersion, tasks: { id: version } }.
// A real integration writes to its own database where this one prints. test/sync/example.test.ts
// runs this file against the test stack.

import { parseArgs } from "node:util";
import PartySocket from "partysocket";
import WebSocket from "ws";

const { values: args } = parseArgs({
  options: { api: { type: "string", default: "http://127.0.0.1:8787" }, key: { type: "string" }, "exclude-own": { type: "boolean" } },
});
if (!args.key) throw new Error("--key ops_... is required");
const api = args.api!.replace(/\/+$/, "");
// The feed's filter: the same on GET /v1/events and on the socket. excludeOwn leaves out this
// key's own writes, which a two-way sync has already applied where it made them.
const filter = { types: "task.*", ...(args["exclude-own"] ? { excludeOwn: "true" } : {}) };

type Task = { id: string; version: number };
type Event = { type: string; changeVersion: number; data: Task };

const mirror = new Map<string, number>();
/** The changeVersion the mirror is exact for: everything up to it is applied, nothing after. */
let changeVersion = 0;

class ResyncRequired extends Error {}

interface Answer {
  changeVersion: number;
  data: unknown[];
  nextCursor: string | null;
  message: string;
  error?: { code: string };
}

async function get(path: string): Promise<Answer> {
  const response = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${args.key}` } });
  const body = (await response.json()) as Answer;
  if (response.status === 410) throw new ResyncRequired(body.message);
  if (!response.ok) throw new Error(`${response.status} ${body.error?.code}: ${body.message}`);
  return body;
}

/** Applies an event to the mirror; an older copy never overwrites a newer one (see snapshot). */
function apply(event: Event): void {
  if (event.type === "task.deleted") mirror.delete(event.data.id);
  else if ((mirror.get(event.data.id) ?? 0) < event.data.version) mirror.set(event.data.id, event.data.version);
}

/** A live event: applied once, if the mirror is not already past it. */
function applyLive(event: Event): boolean {
  if (event.changeVersion <= changeVersion) return false;
  apply(event);
  changeVersion = event.changeVersion;
  return true;
}

const print = () => console.log(JSON.stringify({ changeVersion, tasks: Object.fromEntries([...mirror].sort()) }));

/**
 * 1. Snapshot: every page of the list. Each answer carries the changeVersion it is exact for; the
 * pages may be taken at different moments, so follow from the first one's, and let apply() skip
 * the changes a later page already showed.
 */
async function snapshot(): Promise<void> {
  mirror.clear();
  let first: number | null = null;
  for (let cursor: string | null = ""; cursor !== null;) {
    const page = await get(`/v1/tasks?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
    first ??= page.changeVersion;
    for (const task of page.data as Task[]) mirror.set(task.id, task.version);
    cursor = page.nextCursor;
  }
  changeVersion = first!;
  print();
}

/**
 * 2. Catch up: the feed after the mirror's changeVersion, page by page. The last page's
 * changeVersion is exact for everything up to it, filter or not, so the mirror moves there.
 */
async function catchUp(): Promise<void> {
  for (;;) {
    const page = await get(`/v1/events?after=${changeVersion}&limit=200&${new URLSearchParams(filter)}`);
    for (const event of page.data as Event[]) apply(event);
    if (page.nextCursor === null) {
      changeVersion = Math.max(changeVersion, page.changeVersion);
      break;
    }
    changeVersion = Number(page.nextCursor);
  }
  print();
}

/** 3. Follow: live events on the socket; on every (re)connect, catch up first. 4. Repair: past retention, snapshot again. */
async function follow(): Promise<void> {
  const self = (await get("/v1")) as unknown as { organisation: string; realtime: { url: string } };
  const room = new URL(self.realtime.url);
  let caughtUp = false;
  const held: Event[] = [];
  const socket = new PartySocket({
    host: room.host,
    party: "v1",
    room: self.organisation,
    query: { apiKey: args.key!, ...filter },
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
  });
  socket.addEventListener("message", (message: MessageEvent) => {
    if (message.data === "pong") return;
    const data = JSON.parse(String(message.data)) as Event | { type: "ready" };
    if (data.type !== "ready") {
      const event = data as Event;
      if (!caughtUp) held.push(event);
      else if (applyLive(event)) print();
      return;
    }
    caughtUp = false;
    catchUp()
      .catch(async (error: unknown) => {
        if (!(error instanceof ResyncRequired)) throw error;
        await snapshot();
        await catchUp();
      })
      .then(() => {
        for (const event of held.splice(0)) applyLive(event);
        caughtUp = true;
        print();
      })
      .catch((error: unknown) => {
        console.error(String(error));
        process.exit(1);
      });
  });
  process.once("SIGINT", () => {
    socket.close();
    process.exit(0);
  });
}

await snapshot();
await follow();
