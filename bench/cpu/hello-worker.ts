import type { Statement } from "../../db/client.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { minimalCreateTask, minimalDescribe, minimalGetTask, minimalListTasks, minimalPatchTitle } from "../statements/minimal.ts";

// The floors of bench/sections/cpu.ts, run by the same wrangler the same way as the Worker.
// - GET /: answers "hello" and does nothing else, so its CPU per call is the runtime's own (the floor).
// - GET /io/minimal/describe|task|list|create|change/...: "hello" after the subrequests an API call of that kind
//   cannot do without, and nothing else (the I/O floors): the minimal statement of section 9 for
//   the call (bench/statements/minimal.ts: written by hand, the same logical work, the same record
//   JSON in its answer), POSTed to the SQL endpoint in Neon's protocol as the Worker sends it, its
//   answer read as JSON; for a write, then the post to the organisation's room a write makes.
// - GET /io/read, /io/publish/<orgId>: the same with `select 1` as the statement (the I/O floors
//   before, reported beside): a read's one SQL request, a write's request and post.
// A write's floor posts to the room the event its minimal statement committed, as the API posts
// its own (the room delivers it, keeps it and fans it out); the `select 1` floor posts an event
// of a task's size already delivered (changeVersion 0: the room only acknowledges it). Each with
// the shared secret, its answer read as JSON. The RateLimiter's Durable Object call is left out:
// it is the app's choice.
interface Env {
  SQL_ENDPOINT?: string;
  DATABASE_URL?: string;
  REALTIME_URL?: string;
  REALTIME_SECRET?: string;
}

const SELECT_ONE: Statement = { text: "select 1 as one", params: [] };

/** An answer as the SQL endpoint sends it with Neon-Raw-Text-Output and Neon-Array-Mode. */
interface RawAnswer {
  fields: { name: string }[];
  rows: (string | null)[][];
}

/** One statement as the Worker sends it (db/neon-http.ts): its headers, parameters as text, the answer read as JSON. */
async function statement(env: Env, { text, params }: Statement = SELECT_ONE): Promise<RawAnswer> {
  const response = await fetch(`http://${env.SQL_ENDPOINT}/sql`, {
    method: "POST",
    headers: { "Neon-Connection-String": env.DATABASE_URL ?? "", "Neon-Raw-Text-Output": "true", "Neon-Array-Mode": "true" },
    body: JSON.stringify({ query: text, params: params.map(String) }),
  });
  if (!response.ok) throw new Error(`floor statement: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A task.updated event as a PATCH of a title publishes it (about 1.2 KB of JSON), already delivered. */
const deliveredEvent = (orgId: string) => ({
  id: crypto.randomUUID(),
  type: "task.updated",
  orgId,
  changeVersion: 0,
  occurredAt: new Date().toISOString(),
  data: { id: crypto.randomUUID(), title: "CPU change 1", description: "x".repeat(600), status: "todo", version: 2 },
  changes: { title: { from: "CPU change 0", to: "CPU change 1" } },
  actor: { type: "key", id: crypto.randomUUID(), name: "bench" },
  batchId: null,
});

/** The event a minimal write statement committed (its `event` column), as the API posts it; null when it committed none. */
function committedEvent(answer: RawAnswer): unknown {
  const column = answer.fields.findIndex((field) => field.name === "event");
  const text = answer.rows[0]?.[column];
  return text ? JSON.parse(text) : null;
}

/**
 * A write's subrequests: its statement, then the post to the organisation's room of the event it
 * committed, which the room delivers, keeps and fans out as it does the API's; with `select 1` for
 * the statement, an event already delivered (changeVersion 0: the room only acknowledges it).
 */
async function publish(env: Env, orgId: string, write?: Statement): Promise<Response> {
  const answer = await statement(env, write);
  const response = await fetch(`${env.REALTIME_URL}/parties/v1/${orgId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.REALTIME_SECRET}`, "content-type": "application/json" },
    // A change that set a title the task already had commits no event: the delivered one then.
    body: JSON.stringify({ events: [(write && committedEvent(answer)) ?? deliveredEvent(orgId)] }),
  });
  await response.json();
  return new Response("hello");
}

async function read(env: Env, statementOf: Statement): Promise<Response> {
  await statement(env, statementOf);
  return new Response("hello");
}

const UUID = "[0-9a-f-]{36}";
const HASH = "[0-9a-f]{64}";
const minimalDescribeKey = new RegExp(`/io/minimal/describe/(${HASH})$`);
const minimalTask = new RegExp(`/io/minimal/task/(${HASH})/(${UUID})$`);
const minimalList = new RegExp(`/io/minimal/list/(${HASH})$`);
const minimalCreate = new RegExp(`/io/minimal/create/(${HASH})/(${UUID})/(${UUID})/(${UUID})$`);
const minimalChange = new RegExp(`/io/minimal/change/(${HASH})/(${UUID})/(${UUID})$`);
const selectOnePublish = new RegExp(`/io/publish/(${UUID})$`);
/** Each change sets a new title, as the API's PATCH does in the bench; each create a new one. */
let changes = 0;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    const { url } = request;
    // The floor's path does nothing more than it did before the I/O floors were added.
    if (!url.includes("/io/")) return new Response("hello");
    let match: RegExpExecArray | null;
    if ((match = minimalDescribeKey.exec(url))) return read(env, minimalDescribe(match[1]!));
    if ((match = minimalTask.exec(url))) return read(env, minimalGetTask(match[1]!, match[2]!));
    if ((match = minimalList.exec(url))) return read(env, minimalListTasks(match[1]!, 51));
    if ((match = minimalCreate.exec(url))) {
      const [, keyHash, projectId, assigneeId, orgId] = match as unknown as [string, string, string, string, string];
      const values = { id: uuidv7(), projectId, assigneeId, dueDate: "2026-06-01", title: `CPU floor task ${++changes}` };
      return publish(env, orgId, minimalCreateTask(keyHash, values, crypto.randomUUID()));
    }
    if ((match = minimalChange.exec(url)))
      return publish(env, match[3]!, minimalPatchTitle(match[1]!, match[2]!, `CPU floor change ${++changes}`, crypto.randomUUID()));
    if ((match = selectOnePublish.exec(url))) return publish(env, match[1]!);
    if (url.endsWith("/io/read")) return read(env, SELECT_ONE);
    return new Response("unknown floor", { status: 404 });
  },
};
