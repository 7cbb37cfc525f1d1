// The floors of bench/sections/cpu.ts, run by the same wrangler the same way as the Worker.
// - GET /: answers "hello" and does nothing else, so its CPU per call is the runtime's own (the floor).
// - GET /io/read, /io/write: "hello" after the subrequests an API call of that kind cannot do
//   without, and nothing else (the I/O floor): one POST to the SQL endpoint in Neon's protocol for
//   a read (its statement); two for a write (its statement, and the publish to the room, stood in
//   for by a second statement: the callee's CPU is another process's). Each answer is read as JSON,
//   as a driver reads it. The RateLimiter's Durable Object call is left out: it is the app's choice.
// - GET /io/publish/<orgId>: a write's subrequests exactly: its statement, then the post to the
//   organisation's room a write makes, one event of a task's size with the shared secret (its
//   changeVersion 0, so the room, past it, drops it and only acknowledges), its answer read as JSON.
interface Env {
  SQL_ENDPOINT?: string;
  DATABASE_URL?: string;
  REALTIME_URL?: string;
  REALTIME_SECRET?: string;
}

async function statement(env: Env): Promise<void> {
  const response = await fetch(`http://${env.SQL_ENDPOINT}/sql`, {
    method: "POST",
    headers: { "content-type": "application/json", "neon-connection-string": env.DATABASE_URL ?? "" },
    body: JSON.stringify({ query: "select 1 as one", params: [] }),
  });
  await response.json();
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

async function publish(env: Env, orgId: string): Promise<Response> {
  await statement(env);
  const response = await fetch(`${env.REALTIME_URL}/parties/v1/${orgId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.REALTIME_SECRET}`, "content-type": "application/json" },
    body: JSON.stringify({ events: [deliveredEvent(orgId)] }),
  });
  await response.json();
  return new Response("hello");
}

async function io(env: Env, subrequests: number): Promise<Response> {
  for (let i = 0; i < subrequests; i++) await statement(env);
  return new Response("hello");
}

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    // The floor's path does nothing more than it did before the I/O floor was added.
    if (!request.url.includes("/io/")) return new Response("hello");
    const room = /\/io\/publish\/([0-9a-f-]{36})$/.exec(request.url);
    if (room) return publish(env, room[1]!);
    return io(env, request.url.endsWith("/io/write") ? 2 : 1);
  },
};
