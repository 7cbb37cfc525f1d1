// A third-party application of opsroom, whole (docs/apps.md): it finds the authorization server by
// discovery, sends a person through the OAuth 2.1 authorization-code flow with PKCE, exchanges the
// code for tokens, calls /v1 under its own name, follows the organisation's live events on the
// realtime socket (joined with short-lived tokens it mints), and refreshes its access token before
// it expires (the refresh token rotates: each one is used once).
//
//   OPSROOM_CLIENT_ID=app_... OPSROOM_CLIENT_SECRET=opsroom_cs_... npx tsx docs/app-example.ts \
//     [--api http://127.0.0.1:8787] [--port 8976] [--scope "tasks.read projects.read"]
//
// First register it with `npm run dev` running: Settings -> Integrations -> Applications, redirect
// URI http://127.0.0.1:8976/callback (a loopback URI matches on any port, RFC 8252 §7.3; --port 0
// takes a free one). Without OPSROOM_CLIENT_SECRET it is a public client (PKCE alone). It prints one
// JSON line per step; open the `authorize` line's URL in a browser and allow it. Ctrl-C revokes its
// refresh token and stops. test/console/app-example.test.ts runs it, with Chromium as the person.

import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import PartySocket from "partysocket";
import WebSocket from "ws";

const { values: args } = parseArgs({
  options: {
    api: { type: "string", default: "http://127.0.0.1:8787" },
    port: { type: "string", default: "8976" },
    scope: { type: "string", default: "tasks.read projects.read" },
    // How long before expiry to refresh; the example's test sets it near the token's whole life.
    "refresh-early": { type: "string", default: "60" },
  },
});
const clientId = process.env.OPSROOM_CLIENT_ID;
const clientSecret = process.env.OPSROOM_CLIENT_SECRET || undefined;
if (!clientId) throw new Error("OPSROOM_CLIENT_ID=app_... is required (Settings -> Integrations -> Applications)");
const api = args.api!.replace(/\/+$/, "");

const print = (line: Record<string, unknown>) => console.log(JSON.stringify(line));
const base64url = (bytes: Buffer) => bytes.toString("base64url");

interface Metadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string;
}
/** GET /v1's answer, as far as this example reads it. */
interface Self {
  organisation: string;
  application: string;
  scopes: { scope: string }[];
  realtime: { url: string };
}
interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
}

/** 1. Discovery (RFC 8414): the endpoints, from the issuer's metadata alone. */
async function discover(): Promise<Metadata> {
  const response = await fetch(`${api}/.well-known/oauth-authorization-server`);
  if (!response.ok) throw new Error(`discovery: HTTP ${response.status}`);
  return (await response.json()) as Metadata;
}

/**
 * 2. The person's part: a loopback callback, the authorization URL (with a state and the PKCE
 * challenge), then the code the server sends back to the callback. The answer must carry our
 * state and the issuer we asked (RFC 9207: no code injected from another server).
 */
async function authorize(metadata: Metadata): Promise<{ code: string; redirectUri: string; verifier: string }> {
  const state = base64url(randomBytes(16));
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash("sha256").update(verifier).digest());
  let settle!: (query: URLSearchParams) => void;
  const answered = new Promise<URLSearchParams>((resolve) => (settle = resolve));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("Connected to opsroom: you can close this window.");
    settle(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(Number(args.port), "127.0.0.1", resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const url = new URL(metadata.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId!,
    redirect_uri: redirectUri,
    scope: args.scope!,
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  }).toString();
  print({ step: "authorize", url: url.toString() });
  const query = await answered;
  server.close();
  if (query.get("state") !== state) throw new Error("the callback's state is not ours");
  if (query.get("iss") !== metadata.issuer) throw new Error("the callback's issuer is not the one we asked");
  const error = query.get("error");
  if (error) throw new Error(`not authorized: ${error} ${query.get("error_description") ?? ""}`);
  return { code: query.get("code")!, redirectUri, verifier };
}

/** POST to the token or revocation endpoint, form-encoded, authenticated as the client. */
async function clientPost(endpoint: string, fields: Record<string, string>): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  const form = new URLSearchParams(fields);
  if (clientSecret) {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId!)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`;
  } else form.set("client_id", clientId!);
  return fetch(endpoint, { method: "POST", headers, body: form });
}

/** 3. Tokens: the code with its PKCE verifier, or a refresh token (which is spent by its use). */
async function token(metadata: Metadata, fields: Record<string, string>): Promise<Tokens> {
  const response = await clientPost(metadata.token_endpoint, fields);
  const body = (await response.json()) as Tokens & { error?: string; error_description?: string };
  if (!response.ok) throw new Error(`token endpoint: ${body.error} ${body.error_description ?? ""}`);
  return body;
}

/** The current tokens; refreshed in place. */
let tokens: Tokens;

/** 4. A call to /v1 with the access token, exactly as with an API key. */
async function call<Answer>(path: string, init: { method?: string; body?: unknown } = {}): Promise<Answer> {
  const response = await fetch(`${api}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = (await response.json()) as Answer & { error?: { code: string } };
  if (!response.ok) throw new Error(`${path}: ${response.status} ${body.error?.code}`);
  return body;
}

/** 5. Refresh before expiry; each refresh token works once, so the new pair replaces the old. */
function scheduleRefresh(metadata: Metadata): void {
  const inMs = Math.max(1, tokens.expires_in - Number(args["refresh-early"])) * 1000;
  setTimeout(() => {
    token(metadata, { grant_type: "refresh_token", refresh_token: tokens.refresh_token })
      .then(async (fresh) => {
        tokens = fresh;
        const self = await call<Self>("/v1");
        print({ step: "refreshed", scope: fresh.scope, application: self.application });
        scheduleRefresh(metadata);
      })
      .catch(fail);
  }, inMs).unref();
}

/**
 * 6. Live events: the room's address from GET /v1, joined with a realtime token minted with the
 * access token (partysocket asks for a fresh one at every reconnect, as tokens are short-lived).
 */
function follow(self: Self): PartySocket {
  const socket = new PartySocket({
    host: new URL(self.realtime.url).host,
    party: "v1",
    room: self.organisation,
    query: async () => ({
      token: (await call<{ data: { token: string } }>("/v1/realtime/tokens", { method: "POST", body: {} })).data.token,
    }),
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
  });
  socket.addEventListener("message", (message: MessageEvent) => {
    if (message.data === "pong") return;
    const event = JSON.parse(String(message.data)) as { type: string; changeVersion: number; actor?: unknown };
    if (event.type === "ready") print({ step: "ready", changeVersion: event.changeVersion });
    else print({ step: "event", type: event.type, changeVersion: event.changeVersion, actor: event.actor });
  });
  socket.addEventListener("close", (close: CloseEvent) => {
    // 4401: the installation was removed (or the person lost access): nothing will open again.
    if (close.code === 4401) {
      print({ step: "closed", code: close.code, reason: close.reason });
      socket.close();
    } else console.error(`socket closed (${close.code} ${close.reason}); reconnecting`);
  });
  return socket;
}

function fail(error: unknown): never {
  console.error(String(error));
  process.exit(1);
}

async function main(): Promise<void> {
  const metadata = await discover();
  const { code, redirectUri, verifier } = await authorize(metadata);
  tokens = await token(metadata, { grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier });
  print({ step: "token", scope: tokens.scope, expiresIn: tokens.expires_in });
  const self = await call<Self>("/v1");
  print({
    step: "connected",
    organisation: self.organisation,
    application: self.application,
    scopes: self.scopes.map((s) => s.scope),
  });
  const socket = follow(self);
  scheduleRefresh(metadata);
  process.once("SIGINT", () => {
    socket.close();
    // A tidy exit: the refresh token (and with it the grant's access tokens) stops working now.
    void clientPost(metadata.revocation_endpoint, { token: tokens.refresh_token, token_type_hint: "refresh_token" }).finally(() =>
      process.exit(0),
    );
  });
}

await main().catch(fail);
