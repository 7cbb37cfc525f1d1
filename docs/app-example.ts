// A third-party application of opsroom, whole (docs/apps.md): it finds the authorization server by
// discovery, sends a person through the OAuth 2.1 authorization-code flow with PKCE, exchanges the
// code for tokens, calls /v1 under its own name, follows the organisation's live events on the
// realtime socket (joined with short-lived tokens it mints), and refreshes its access token before
// it expires (the refresh token rotates: each one is used once). The OAuth side is oauth4webapi, a
// client library nobody here wrote, which checks each answer as the RFCs say (state, iss, tokens).
//
//   OPSROOM_CLIENT_ID=app_... OPSROOM_CLIENT_SECRET=opsroom_cs_... npx tsx docs/app-example.ts \
//     [--api http://127.0.0.1:8787] [--port 8976] [--scope "tasks.read projects.read"]
//
// First register it with `npm run dev` running: Settings -> Integrations -> Applications, redirect
// URI http://127.0.0.1:8976/callback (a loopback URI matches on any port, RFC 8252 §7.3; --port 0
// takes a free one). Without OPSROOM_CLIENT_SECRET it is a public client (PKCE alone). It prints one
// JSON line per step; open the `authorize` line's URL in a browser and allow it. Ctrl-C revokes its
// refresh token (and with it the grant) and stops. test/console/app-example.test.ts runs it, with
// Chromium as the person.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import * as oauth from "oauth4webapi";
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
const issuer = new URL(args.api!.replace(/\/+$/, ""));
const client: oauth.Client = { client_id: clientId };
const clientAuth = clientSecret ? oauth.ClientSecretBasic(clientSecret) : oauth.None();
// oauth4webapi speaks https only, unless told otherwise: `npm run dev` is http on this machine.
const options = { [oauth.allowInsecureRequests]: issuer.protocol === "http:" };

const print = (line: Record<string, unknown>) => console.log(JSON.stringify(line));

/** GET /v1's answer, as far as this example reads it. */
interface Self {
  organisation: string;
  application: string;
  scopes: { scope: string }[];
  realtime: { url: string };
}

/** 1. Discovery (RFC 8414): the endpoints, from the issuer's metadata alone. */
async function discover(): Promise<oauth.AuthorizationServer> {
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...options }));
}

/** Serves the loopback callback once: answers the URL it was called with. */
async function callback(): Promise<{ redirectUri: string; answered: Promise<URL> }> {
  let settle!: (url: URL) => void;
  const answered = new Promise<URL>((resolve) => (settle = resolve));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", `http://${request.headers.host}`);
    if (url.pathname !== "/callback") return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("Connected to opsroom: you can close this window.");
    server.close();
    settle(url);
  });
  await new Promise<void>((resolve) => server.listen(Number(args.port), "127.0.0.1", resolve));
  return { redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, answered };
}

/**
 * 2. The person's part: the authorization URL (a state and the PKCE challenge), printed for the
 * person to open; then the code the server sends back to the loopback callback, which
 * validateAuthResponse accepts only with our state and this issuer (RFC 9207), and the tokens.
 */
async function authorize(as: oauth.AuthorizationServer): Promise<oauth.TokenEndpointResponse> {
  const { redirectUri, answered } = await callback();
  const state = oauth.generateRandomState();
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId!,
    redirect_uri: redirectUri,
    scope: args.scope!,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  }).toString();
  print({ step: "authorize", url: url.toString() });
  const params = oauth.validateAuthResponse(as, client, await answered, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, options);
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

/** The current tokens; refreshed in place. */
let tokens: oauth.TokenEndpointResponse;

/** 3. A call to /v1 with the access token, exactly as with an API key. */
async function call<Answer>(path: string, init: { method?: string; body?: unknown } = {}): Promise<Answer> {
  const response = await fetch(new URL(path, issuer), {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = (await response.json()) as Answer & { error?: { code: string } };
  if (!response.ok) throw new Error(`${path}: ${response.status} ${body.error?.code}`);
  return body;
}

/** 4. Refresh before expiry; each refresh token works once, so the new pair replaces the old. */
function scheduleRefresh(as: oauth.AuthorizationServer): void {
  const inMs = Math.max(1, (tokens.expires_in ?? 3600) - Number(args["refresh-early"])) * 1000;
  setTimeout(() => {
    oauth
      .refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, options)
      .then((response) => oauth.processRefreshTokenResponse(as, client, response))
      .then(async (fresh) => {
        tokens = fresh;
        const self = await call<Self>("/v1");
        print({ step: "refreshed", scope: fresh.scope, application: self.application });
        scheduleRefresh(as);
      })
      .catch(fail);
  }, inMs).unref();
}

/**
 * 5. Live events: the room's address from GET /v1, joined with a realtime token minted with the
 * access token (partysocket asks for a fresh one at every reconnect, as tokens are short-lived).
 */
function follow(self: Self): PartySocket {
  const mint = () => call<{ data: { token: string } }>("/v1/realtime/tokens", { method: "POST", body: {} });
  const socket = new PartySocket({
    host: new URL(self.realtime.url).host,
    party: "v1",
    room: self.organisation,
    query: async () => ({ token: (await mint()).data.token }),
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
  });
  socket.addEventListener("message", (message: MessageEvent) => {
    if (message.data === "pong") return;
    const event = JSON.parse(String(message.data)) as { type: string; changeVersion: number; data?: { id?: string }; actor?: unknown };
    if (event.type === "ready") print({ step: "ready", changeVersion: event.changeVersion });
    else print({ step: "event", type: event.type, changeVersion: event.changeVersion, id: event.data?.id, actor: event.actor });
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
  console.error(
    error instanceof oauth.AuthorizationResponseError ? `not authorized: ${error.error} ${error.error_description ?? ""}` : String(error),
  );
  process.exit(1);
}

async function main(): Promise<void> {
  const as = await discover();
  tokens = await authorize(as);
  print({ step: "token", scope: tokens.scope, expiresIn: tokens.expires_in });
  const self = await call<Self>("/v1");
  print({ step: "connected", organisation: self.organisation, application: self.application, scopes: self.scopes.map((s) => s.scope) });
  const socket = follow(self);
  scheduleRefresh(as);
  process.once("SIGINT", () => {
    socket.close();
    // A tidy exit (RFC 7009): the refresh token, and with it the grant's access tokens, stop now.
    void oauth
      .revocationRequest(as, client, clientAuth, tokens.refresh_token!, options)
      .then(oauth.processRevocationResponse)
      .finally(() => process.exit(0));
  });
}

await main().catch(fail);
