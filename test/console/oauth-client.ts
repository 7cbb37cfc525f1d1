import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { Scope } from "../../domain/scopes.ts";
import { expectSuccess, testClientAddress, workerUrl } from "../helpers/api.ts";
import { asPerson, type Person } from "../helpers/people.ts";
import { UI_TIMEOUT_MS } from "./browser.ts";

// The third-party application's side of the authorization-code flow, for the browser tests: a
// loopback callback that records what the authorization server sends back (RFC 8252 §7.3), PKCE
// (RFC 7636, S256), the authorization URL, and the token endpoint's form-encoded calls.

export interface Callback {
  /** The redirect URI to register: http://127.0.0.1:<port>/callback. */
  redirectUri: string;
  /** The host a consent page names: 127.0.0.1:<port>. */
  host: string;
  /**
   * Waits for the next request to the callback, and for `page` to have landed on it (loaded);
   * answers its query. The callback receives the request while Chromium is still committing the
   * cross-origin navigation to it, and a page closed during that commit can hang `page.close()`
   * for good (microsoft/playwright#41900, #42366: Chromium acknowledges the close and drops it):
   * a test goes on only once the page stands on the callback, as a person's browser would.
   */
  next(page: Page): Promise<URLSearchParams>;
  stop(): Promise<void>;
}

/** A callback on a free loopback port; it answers each request to /callback with a short page. */
export async function startCallback(): Promise<Callback> {
  const received: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    // Only the callback counts: the browser also asks for /favicon.ico.
    if (url.pathname !== "/callback") return void response.writeHead(404).end();
    received.push(url.searchParams);
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>Connected</title><p>You can close this window.</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  let taken = 0;
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  return {
    redirectUri,
    host: `127.0.0.1:${port}`,
    async next(page) {
      await expect.poll(() => received.length > taken, { timeout: UI_TIMEOUT_MS, message: "no request reached the callback" }).toBe(true);
      await page.waitForURL((url) => `${url.origin}${url.pathname}` === redirectUri, { waitUntil: "load" });
      return received[taken++]!;
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** A PKCE pair: a random verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash("sha256").update(verifier).digest()) };
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  state?: string;
  challenge: string;
}

/** The /oauth/authorize URL a person's browser is sent to. */
export function authorizeUrl(request: AuthorizationRequest): string {
  const url = new URL("/oauth/authorize", workerUrl());
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope,
    state: request.state ?? base64url(randomBytes(12)),
    code_challenge: request.challenge,
    code_challenge_method: "S256",
  }).toString();
  return url.toString();
}

export interface Client {
  clientId: string;
  /** Absent for a public client. */
  clientSecret?: string | null;
}

export interface TokenAnswer {
  status: number;
  headers: Headers;
  body: { access_token?: string; refresh_token?: string; token_type?: string; expires_in?: number; scope?: string; error?: string };
}

/** Registers an application through the settings API as `owner` (for tests whose subject is not the settings page). */
export async function registerApplication(owner: Person, name: string, scopes: Scope[], redirectUris: string[]): Promise<Client> {
  const created = await asPerson(owner.cookie, "/v1/settings/applications", { body: { name, redirectUris, scopes } });
  const { application, clientSecret } = expectSuccess(created, 201).data;
  return { clientId: application.clientId, clientSecret };
}

/** POST /oauth/consent with a person's session cookie, as the consent page sends it (same origin). */
export async function postConsent(person: Person, body: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL("/oauth/consent", workerUrl()), {
    method: "POST",
    headers: { "content-type": "application/json", cookie: person.cookie, origin: workerUrl(), "cf-connecting-ip": testClientAddress() },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** POST /oauth/token, form-encoded; a confidential client authenticates with HTTP Basic. */
export async function tokenRequest(client: Client, fields: Record<string, string>): Promise<TokenAnswer> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
    "cf-connecting-ip": testClientAddress(),
  };
  const form = new URLSearchParams(fields);
  if (client.clientSecret) {
    const pair = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
  } else form.set("client_id", client.clientId);
  const response = await fetch(new URL("/oauth/token", workerUrl()), { method: "POST", headers, body: form });
  return { status: response.status, headers: response.headers, body: (await response.json()) as TokenAnswer["body"] };
}

/** Exchanges an authorization code (with its PKCE verifier) for tokens, asserting success. */
export async function exchangeCode(client: Client, code: string, redirectUri: string, verifier: string) {
  const answer = await tokenRequest(client, { grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as Required<TokenAnswer["body"]>;
}
