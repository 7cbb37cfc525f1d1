// `npm run bench:walks`: the project files whose code runs for each of the three requests
// docs/architecture.md walks (a PATCH, the same change as an MCP tool call, an OAuth token
// request). The app's `fetch` runs in this Node process against a fresh database (as
// bench/app-alone.ts does, the room's posts answered in process); each request is sent three times
// to warm its paths, then once more under V8's precise coverage, reset just before it. A file
// counts when a function of it (not only its module's top level) ran, in the request or in the work
// it hands to waitUntil (which starts before the answer is read, so the two are not told apart
// here; docs/architecture.md names the deferred files). functions/index.ts cannot load in Node (it exports the Durable
// Objects, which import cloudflare:workers): the Worker's fetch adds it and the two files it calls.

import { createHash, randomBytes } from "node:crypto";
import { Session } from "node:inspector/promises";
import { createApp } from "../functions/app.ts";
import type { Bindings } from "../functions/env.ts";
import { replayOrg, withBenchDatabase } from "./lib/data.ts";
import { recordingFetch, replayEnv, type App } from "./lib/replay.ts";

const ROOT = new URL("../", import.meta.url).href;
const BASE = "http://api.bench.invalid";
/** What the Worker's fetch runs before the app (functions/index.ts). */
const BEFORE_THE_APP = ["functions/index.ts", "functions/subrequests.ts", "functions/sweep-watch.ts"];

interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

type Coverage = Array<{ url: string; functions: Array<{ ranges: Array<{ startOffset: number; count: number }> }> }>;

/** The project files with a function that ran since the last call (which resets the counts). */
async function filesRun(session: Session): Promise<string[]> {
  const { result } = (await session.post("Profiler.takePreciseCoverage")) as unknown as { result: Coverage };
  return result
    .map((script) => ({ path: script.url.slice(ROOT.length), script }))
    .filter(({ path, script }) => script.url.startsWith(ROOT) && /^(functions|services|db|domain)\//.test(path))
    .filter(({ script }) => script.functions.some((f) => f.ranges[0]!.startOffset !== 0 && f.ranges[0]!.count > 0))
    .map(({ path }) => path)
    .sort();
}

/** One request through the app, and the work it deferred. */
async function send(app: App, env: Bindings, request: Request): Promise<Answer> {
  const deferred: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void deferred.push(p), passThroughOnException: () => {}, props: {} };
  const response = await app.fetch(request, env, ctx as unknown as ExecutionContext);
  const text = await response.text();
  await Promise.all(deferred);
  return { status: response.status, text, headers: response.headers };
}

/** A person signed up, their application, and fresh authorization codes for it (bench/apps.ts's set-up, in process). */
async function oauthCodes(call: (request: Request) => Promise<Answer>, count: number): Promise<string[]> {
  const email = `walks-${randomBytes(6).toString("hex")}@example.com`;
  const signUp = await call(
    new Request(`${BASE}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE },
      body: JSON.stringify({ email, password: `pw-${randomBytes(8).toString("hex")}`, name: "Walks" }),
    }),
  );
  const cookie = signUp.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .join("; ");
  const headers = { "content-type": "application/json", origin: BASE, cookie };
  const orgId = JSON.parse((await call(new Request(`${BASE}/v1/settings/session`, { headers }))).text).data.organisation.id as string;
  const body = { name: "Walks", redirectUris: ["https://client.example.com/cb"], scopes: ["tasks.manage"] };
  const made = JSON.parse(
    (await call(new Request(`${BASE}/v1/settings/applications`, { method: "POST", headers, body: JSON.stringify(body) }))).text,
  );
  const client = { client_id: made.data.application.clientId as string, client_secret: made.data.clientSecret as string };
  const codes: string[] = [];
  for (let i = 0; i < count; i++) {
    const verifier = randomBytes(32).toString("base64url");
    const query = {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: "https://client.example.com/cb",
      scope: "tasks.manage",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    };
    const consent = { ...query, orgId, decision: "allow" };
    const { redirectTo } = JSON.parse(
      (await call(new Request(`${BASE}/oauth/consent`, { method: "POST", headers, body: JSON.stringify(consent) }))).text,
    );
    const code = new URL(redirectTo as string).searchParams.get("code")!;
    codes.push(
      new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: query.redirect_uri,
        code_verifier: verifier,
        ...client,
      }).toString(),
    );
  }
  return codes;
}

/** The three requests, each a fresh Request per call. */
function walks(org: { key: string; taskId: string }, codes: string[]): Array<[string, () => Request]> {
  const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
  const title = () => `Walked ${randomBytes(4).toString("hex")}`;
  const mcp = { ...headers, accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
  const toolCall = () => ({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "updateTask", arguments: { id: org.taskId, title: title() } },
  });
  const form = { "content-type": "application/x-www-form-urlencoded" };
  return [
    [
      "PATCH /v1/tasks/{id}",
      () => new Request(`${BASE}/v1/tasks/${org.taskId}`, { method: "PATCH", headers, body: JSON.stringify({ title: title() }) }),
    ],
    ["MCP tools/call updateTask", () => new Request(`${BASE}/mcp`, { method: "POST", headers: mcp, body: JSON.stringify(toolCall()) })],
    [
      "POST /oauth/token authorization_code",
      () => new Request(`${BASE}/oauth/token`, { method: "POST", headers: form, body: codes.shift()! }),
    ],
  ];
}

async function main() {
  // The room's posts are answered in process (bench/lib/replay.ts); statements go to the SQL endpoint.
  globalThis.fetch = recordingFetch(globalThis.fetch).fetch;
  await withBenchDatabase(async ({ url, sqlEndpoint, db }) => {
    const org = await replayOrg(db, "walks");
    const env = replayEnv({
      DATABASE_URL: url,
      LOCAL_SQL_ENDPOINT: sqlEndpoint,
      REALTIME_SECRET: "bench-secret-bench-secret",
      PUBLIC_ORIGIN: BASE,
      AUTH_SECRET: randomBytes(32).toString("hex"),
    });
    // Sign-in and the token endpoint ask the address's AuthGuard; it lets every request through here.
    const open = async () => ({ blocked: false, retryAfter: 0 });
    Object.assign(env, {
      AUTH_GUARD: { idFromName: (name: string) => ({ name }), get: () => ({ check: open, fail: open, attempt: open }) },
    });
    const app = createApp();
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
    const call = (request: Request) => send(app, env, request);
    for (const [name, request] of walks(org, await oauthCodes(call, 4))) {
      for (let i = 0; i < 3; i++) await call(request());
      await filesRun(session);
      const answer = await call(request());
      const files = [...BEFORE_THE_APP, ...(await filesRun(session))].sort();
      console.log(`\n${name}: ${answer.status} ${answer.text.slice(0, 80)}`);
      console.log(`${files.length} files:\n  ${files.join("\n  ")}`);
    }
    session.disconnect();
  });
}

await main();
