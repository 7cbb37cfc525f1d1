import type { createApp } from "../../functions/app.ts";
import type { Bindings } from "../../functions/env.ts";
import { countRequests, type CountingWindow } from "../../functions/rate-limit/lease.ts";

// The app alone, in whichever runtime imports this (Node in bench/app-alone.ts, workerd in
// bench/app-in-workerd/worker.ts): its calls, each run once for real and its answers kept (the
// statement's, the room's acknowledgement, which the next write's statement records), then
// replayed without leaving the process. What remains is what the isolate does per call: routing,
// middleware, validation, the key's hash, compiling the statement, reading its answer, the
// envelope, the after-commit publish. Two stand-ins, both for what another process does: the
// RateLimiter Durable Object answers "allowed" (counting and leasing as the real one does), and the
// room acknowledges every event it is sent.

export type App = ReturnType<typeof createApp>;

export interface Answer {
  status: number;
  body: string;
}

/** The room's address in the replayed Worker's settings: never reached, its posts are answered here. */
export const ROOM = "http://room.bench.invalid";

/** What the calls are made of: an organisation's key, one of its tasks, a project and a person of it. */
export interface ReplayOrg {
  key: string;
  taskId: string;
  projectId: string;
  personId: string;
}

export interface ReplayCall {
  name: string;
  /** The API's target for the app alone, µs of CPU per call. */
  targetUs?: number;
  request(i: number): Request;
}

/** Whether `--only=a,b` chooses the call (a part of its name, any case); every call without it. */
export const isChosen = (call: ReplayCall, only: string[] | undefined) =>
  !only || only.some((o) => call.name.toLowerCase().includes(o.toLowerCase()));

/** The calls measured, from the cheapest (an unknown path) to a change. */
export function replayCalls(org: ReplayOrg): ReplayCall[] {
  const auth = { authorization: `Bearer ${org.key}` };
  const json = { ...auth, "content-type": "application/json" };
  const base = "http://api.bench.invalid";
  return [
    { name: "unknown path (404)", request: () => new Request(`${base}/v1/nope`, { headers: auth }) },
    { name: "GET /v1", request: () => new Request(`${base}/v1`, { headers: auth }) },
    { name: "GET /v1/tasks/:id", request: () => new Request(`${base}/v1/tasks/${org.taskId}`, { headers: auth }) },
    { name: "GET /v1/tasks?limit=50", targetUs: 300, request: () => new Request(`${base}/v1/tasks?limit=50`, { headers: auth }) },
    {
      name: "POST /v1/tasks",
      targetUs: 500,
      request: (i) =>
        new Request(`${base}/v1/tasks`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            projectId: org.projectId,
            assigneeId: org.personId,
            dueDate: "2026-12-01",
            title: `App alone ${i}`,
            priority: "high",
          }),
        }),
    },
    {
      name: "PATCH /v1/tasks/:id",
      targetUs: 500,
      request: (i) =>
        new Request(`${base}/v1/tasks/${org.taskId}`, { method: "PATCH", headers: json, body: JSON.stringify({ title: `Renamed ${i}` }) }),
    },
  ];
}

/**
 * A `fetch` to install as the global one: while recording, it passes statements to `realFetch`,
 * answers the room's posts, and keeps every answer; while replaying, it hands the kept answers
 * back in order, as lean objects (what a runtime's native fetch gives: the status and the body,
 * read and parsed once; in Node, undici's Request and Response cost more than the app itself).
 */
export function recordingFetch(realFetch: typeof fetch) {
  let tape: Answer[] = [];
  let replaying = false;
  let position = 0;
  const fetchOf = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if (replaying) return leanResponse(tape[position++ % tape.length]!);
    const request = new Request(input, init);
    let answer: Answer;
    if (request.url.startsWith(ROOM)) {
      // The room acknowledges every event it is sent (realtime/room.ts answers the same shape).
      const { events } = (await request.json()) as { events: { changeVersion: number }[] };
      answer = { status: 200, body: JSON.stringify({ acknowledged: events.map((e) => e.changeVersion) }) };
    } else {
      const response = await realFetch(request);
      answer = { status: response.status, body: await response.text() };
    }
    tape.push(answer);
    return new Response(answer.body, { status: answer.status, headers: { "content-type": "application/json" } });
  };
  return {
    fetch: fetchOf as typeof fetch,
    /** Starts a new tape: the next calls go out for real. */
    record() {
      replaying = false;
      tape = [];
    },
    /** The tape recorded since `record()`; replaying it (or `tape`) from now on. */
    replay(from: Answer[] = tape): Answer[] {
      replaying = true;
      tape = from;
      return tape;
    },
    /** Each call replays its tape from the start. */
    rewind() {
      position = 0;
    },
  };
}

function leanResponse(answer: Answer): Response {
  const lean = {
    ok: answer.status >= 200 && answer.status < 300,
    status: answer.status,
    // Made only if read (nothing on the measured paths does): in Node a Headers costs more than the rest of this.
    get headers() {
      return new Headers({ "content-type": "application/json" });
    },
    text: async () => answer.body,
    json: async () => JSON.parse(answer.body) as unknown,
  };
  return lean as unknown as Response;
}

/** The RateLimiter's and the AuthGuard's counting, in place of their Durable Objects: leased as the real one does. */
export function stubLimiters() {
  const counted: CountingWindow = { start: 0, count: 0 };
  return {
    idFromName: (name: string) => ({ name }),
    get: () => ({
      consume: async (_key: string, _address: string, cost = 1) => countRequests(counted, 1_000_000_000, cost, Date.now()),
      consumeAt: async (_limit: number, cost = 1) => countRequests(counted, 1_000_000_000, cost, Date.now()),
      forget: async () => {},
      refused: async () => ({ blocked: false }),
    }),
  };
}

/** The Worker's settings with the room and the Durable Objects stood in for. */
export function replayEnv(settings: Record<string, unknown>): Bindings {
  const limiters = stubLimiters();
  return { ...settings, REALTIME_URL: ROOM, RATE_LIMITER: limiters, AUTH_GUARD: limiters } as unknown as Bindings;
}

/** One call; its deferred work (the publish) is awaited, as the runtime runs it before the isolate idles. */
export async function runCall(app: App, env: Bindings, request: Request): Promise<number> {
  const deferred: Promise<unknown>[] = [];
  const ctx = {
    waitUntil: (p: Promise<unknown>) => void deferred.push(p),
    passThroughOnException: () => {},
    props: {},
  } as unknown as ExecutionContext;
  const response = await app.fetch(request, env, ctx);
  await response.text();
  await Promise.all(deferred);
  return response.status;
}
