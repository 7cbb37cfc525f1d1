// The floors of bench/sections/cpu.ts, run by the same wrangler the same way as the Worker.
// - GET /: answers "hello" and does nothing else, so its CPU per call is the runtime's own (the floor).
// - GET /io/read, /io/write: "hello" after the subrequests an API call of that kind cannot do
//   without, and nothing else (the I/O floor): one POST to the SQL endpoint in Neon's protocol for
//   a read (its statement); two for a write (its statement, and the publish to the room, stood in
//   for by a second statement: the callee's CPU is another process's). Each answer is read as JSON,
//   as a driver reads it. The RateLimiter's Durable Object call is left out: it is the app's choice.
interface Env {
  SQL_ENDPOINT?: string;
  DATABASE_URL?: string;
}

async function statement(env: Env): Promise<void> {
  const response = await fetch(`http://${env.SQL_ENDPOINT}/sql`, {
    method: "POST",
    headers: { "content-type": "application/json", "neon-connection-string": env.DATABASE_URL ?? "" },
    body: JSON.stringify({ query: "select 1 as one", params: [] }),
  });
  await response.json();
}

async function io(env: Env, subrequests: number): Promise<Response> {
  for (let i = 0; i < subrequests; i++) await statement(env);
  return new Response("hello");
}

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    // The floor's path does nothing more than it did before the I/O floor was added.
    if (!request.url.includes("/io/")) return new Response("hello");
    return io(env, request.url.endsWith("/io/write") ? 2 : 1);
  },
};
