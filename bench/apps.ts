// An application's access token beside an API key (docs/apps.md "Cost"), in one run on one stack:
// the database round trips of a /v1 call with each (bench/round-trips.ts's method: every call timed
// with the database's messages passed straight through and held back DELAY_MS each way,
// alternately), the Worker's workerd CPU a call with each (its CPU clock over a batch,
// bench/cpu/cpu-clock.ts, as section 8 reads it, less its CPU with no calls), and the same for the token endpoint's
// three grants. Medians; the machine is shared, so only figures of the same run compare.
// Alone: npx tsx bench/apps.ts   (embedded Postgres, or DATABASE_URL)
import { createHash, randomBytes } from "node:crypto";
import { median } from "./lib/load.ts";
import { startBenchStack, type BenchStack } from "./lib/stack.ts";
import { idleRate, workerCpuMs } from "./lib/worker-cpu.ts";
import { DELAY_MS } from "./round-trips.ts";

const SAMPLES = 15;
const ROUNDS = 3;
const CALLS_PER_BATCH = 100;

type Call = () => Promise<unknown>;

async function send(stack: BenchStack, path: string, init: RequestInit & { cookie?: string; key?: string } = {}) {
  const headers = new Headers(init.headers);
  headers.set("origin", stack.workerUrl);
  if (init.cookie) headers.set("cookie", init.cookie);
  if (init.key) headers.set("authorization", `Bearer ${init.key}`);
  const response = await fetch(stack.workerUrl + path, { ...init, headers, redirect: "manual" });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text.slice(0, 300)}`);
  // The answers are the API's and the token endpoint's own, which the tests check: read as they are.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a bench reads a few known fields of known answers
  return text ? (JSON.parse(text) as any) : null;
}
const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const form = (body: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(body).toString(),
});

/** A person, their key, an application they allowed, and a task: everything the calls need. */
async function setUp(stack: BenchStack) {
  const signUp = await fetch(`${stack.workerUrl}/auth/sign-up/email`, {
    ...json({
      email: `bench-${randomBytes(6).toString("hex")}@example.com`,
      password: `pw-${randomBytes(8).toString("hex")}`,
      name: "Bench",
    }),
    headers: { "content-type": "application/json", origin: stack.workerUrl },
  });
  const cookie = signUp.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .join("; ");
  const orgId = (await send(stack, "/v1/settings/session", { cookie })).data.organisation.id as string;
  const key = (
    await send(stack, "/v1/settings/api-keys", {
      ...json({ name: "bench", scopes: ["tasks.manage", "projects.manage", "organisation.manage"], rateLimit: 100_000 }),
      cookie,
    })
  ).data.key as string;
  const app = (
    await send(stack, "/v1/settings/applications", {
      ...json({ name: "Bench app", redirectUris: ["https://client.example.com/cb"], scopes: ["tasks.manage", "projects.manage"] }),
      cookie,
    })
  ).data;
  const client = { client_id: app.application.clientId as string, client_secret: app.clientSecret as string };
  const code = async () => {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const query = {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: "https://client.example.com/cb",
      scope: "tasks.manage projects.manage",
      code_challenge: challenge,
      code_challenge_method: "S256",
    };
    const { redirectTo } = await send(stack, "/oauth/consent", { ...json({ ...query, orgId, decision: "allow" }), cookie });
    return {
      grant_type: "authorization_code",
      code: new URL(redirectTo).searchParams.get("code")!,
      redirect_uri: query.redirect_uri,
      code_verifier: verifier,
      ...client,
    };
  };
  const tokens = await send(stack, "/oauth/token", form(await code()));
  // Out of the way of the measurement: the key's and the installation's limits (read at their first call).
  await stack.db.query(`update installations set rate_limit = 100000000 where org_id = $1`, [orgId]);
  const project = await send(stack, "/v1/projects", {
    ...json({ name: "P", budget: 0, startDate: "2026-01-01", endDate: "2026-12-31" }),
    key,
  });
  const person = await send(stack, "/v1/personnel", { ...json({ name: "P", email: `p${Date.now()}@example.com` }), key });
  const newTask = { title: "T", projectId: project.data.id, assigneeId: person.data.id, dueDate: "2026-06-01" };
  const task = await send(stack, "/v1/tasks", { ...json(newTask), key });
  let refreshToken = tokens.refresh_token as string;
  const calls: Record<string, Call> = {
    "GET /v1/tasks/:id, API key": () => send(stack, `/v1/tasks/${task.data.id}`, { key }),
    "GET /v1/tasks/:id, access token": () => send(stack, `/v1/tasks/${task.data.id}`, { key: tokens.access_token }),
    "PATCH /v1/tasks/:id, API key": () =>
      send(stack, `/v1/tasks/${task.data.id}`, { ...json({ title: `K ${Math.random()}` }), method: "PATCH", key }),
    "PATCH /v1/tasks/:id, access token": () =>
      send(stack, `/v1/tasks/${task.data.id}`, { ...json({ title: `A ${Math.random()}` }), method: "PATCH", key: tokens.access_token }),
    "POST /oauth/token refresh_token": async () => {
      refreshToken = (await send(stack, "/oauth/token", form({ grant_type: "refresh_token", refresh_token: refreshToken, ...client })))
        .refresh_token;
    },
    "POST /oauth/token client_credentials": () => send(stack, "/oauth/token", form({ grant_type: "client_credentials", ...client })),
  };
  return { calls, code, exchange: (fields: Record<string, string>) => send(stack, "/oauth/token", form(fields)) };
}

/** ms of the Worker's CPU a call: a batch's CPU time, less the idle rate over its duration. */
async function cpuPerCall(cpuMs: () => Promise<number>, idlePerMs: number, run: () => Promise<void>, calls: number) {
  const t0 = performance.now();
  const before = await cpuMs();
  await run();
  const spent = (await cpuMs()) - before - idlePerMs * (performance.now() - t0);
  return spent / calls;
}

async function main() {
  const stack = await startBenchStack({ realtime: false });
  try {
    const { calls, code, exchange } = await setUp(stack);
    const cpuMs = workerCpuMs(stack);
    for (const call of Object.values(calls)) for (let i = 0; i < 30; i++) await call();
    const idlePerMs = await idleRate(cpuMs);
    const rows: { call: string; roundTrips: number; cpu: number }[] = [];
    const timed = async (run: Call) => {
      const t0 = performance.now();
      await run();
      return performance.now() - t0;
    };
    const roundTrips = async (prepare: () => Promise<Call>) => {
      const [direct, delayed] = [[] as number[], [] as number[]];
      for (let i = 0; i < SAMPLES; i++) {
        stack.sqlEndpoint.setDelay(0);
        direct.push(await timed(await prepare()));
        const next = await prepare();
        stack.sqlEndpoint.setDelay(DELAY_MS);
        delayed.push(await timed(next));
        stack.sqlEndpoint.setDelay(0);
      }
      return (median(delayed) - median(direct)) / (2 * DELAY_MS);
    };
    const measure: [string, () => Promise<Call>][] = [
      ...Object.entries(calls).map(([name, call]) => [name, async () => call] as [string, () => Promise<Call>]),
      [
        "POST /oauth/token authorization_code",
        async () => {
          const fields = await code();
          return () => exchange(fields);
        },
      ],
    ];
    const cpu: Record<string, number[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, prepare] of measure) {
        const prepared = [] as Call[];
        for (let i = 0; i < CALLS_PER_BATCH; i++) prepared.push(await prepare());
        const ms = await cpuPerCall(
          cpuMs,
          idlePerMs,
          async () => {
            for (const call of prepared) await call();
          },
          CALLS_PER_BATCH,
        );
        (cpu[name] ??= []).push(ms);
      }
    }
    for (const [name, prepare] of measure) rows.push({ call: name, roundTrips: await roundTrips(prepare), cpu: median(cpu[name]!) });
    console.log(
      `${stack.databaseLabel}; ${ROUNDS} rounds of ${CALLS_PER_BATCH} calls each, ${SAMPLES} samples of round trips at ${DELAY_MS} ms each way`,
    );
    console.log("| call | round trips | Worker CPU a call (ms, median of rounds) |");
    console.log("|---|---|---|");
    for (const row of rows) console.log(`| ${row.call} | ${row.roundTrips.toFixed(2)} | ${row.cpu.toFixed(2)} |`);
  } finally {
    await stack.close();
  }
}

await main();
