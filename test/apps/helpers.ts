import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { s256ChallengeOf } from "../../domain/crypto/oauth.ts";
import { testClientAddress, workerUrl } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { asPerson, type Person } from "../helpers/people.ts";

// OAuth applications in tests (docs/apps.md): register one in the settings area, run the
// authorization-code flow as the console's consent page does (the authorize redirect, then
// POST /oauth/consent with the session cookie and this origin), and call the token endpoint as a
// client does (a form body, HTTP Basic or the body's client_id).

export interface RegisteredApp {
  id: string;
  clientId: string;
  clientSecret: string | null;
  name: string;
  redirectUri: string;
}

export const REDIRECT_URI = "https://client.example.com/callback";

/** Registers an application in `owner`'s organisation (asserting 201). */
export async function registerApp(owner: Person, body: Record<string, unknown> = {}): Promise<RegisteredApp> {
  const sent = { name: "Acme Planner", redirectUris: [REDIRECT_URI], scopes: ["tasks.manage", "projects.read"], ...body };
  const response = await asPerson(owner.cookie, "/v1/settings/applications", { body: sent });
  expect(response.status, response.text).toBe(201);
  const { application, clientSecret } = response.body.data;
  return {
    id: application.id,
    clientId: application.clientId,
    clientSecret,
    name: application.name,
    redirectUri: (sent.redirectUris as string[])[0]!,
  };
}

/** A PKCE pair: a fresh verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: s256ChallengeOf(verifier) };
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  response_type?: string;
  resource?: string;
}

/** GET /oauth/authorize with these parameters; redirects are not followed. */
export function authorize(params: AuthorizeParams | Record<string, string>, extra = ""): Promise<Response> {
  const url = new URL("/oauth/authorize", workerUrl());
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return fetch(url.toString() + extra, { redirect: "manual", headers: { "cf-connecting-ip": testClientAddress() } });
}

/** POST /oauth/consent as the console's page: the person's cookie, this origin (unless `origin` says otherwise). */
export function postConsent(person: Person, body: Record<string, unknown>, origin: string | null = workerUrl()): Promise<Response> {
  return fetch(new URL("/oauth/consent", workerUrl()), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      cookie: person.cookie,
      "cf-connecting-ip": testClientAddress(),
      ...(origin ? { origin } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** The standard authorization request of `app`, with a fresh PKCE pair and state. */
export function authorizationRequest(app: RegisteredApp, overrides: Partial<AuthorizeParams> = {}) {
  const { verifier, challenge } = pkce();
  const params: AuthorizeParams = {
    response_type: "code",
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    scope: "tasks.manage projects.read",
    state: randomBytes(8).toString("hex"),
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...overrides,
  };
  return { params, verifier };
}

/** A person allows `app` in `orgId` (default: theirs): answers the code and the verifier. */
export async function consentCode(
  app: RegisteredApp,
  person: Person,
  options: { orgId?: string; overrides?: Partial<AuthorizeParams> } = {},
) {
  const { params, verifier } = authorizationRequest(app, options.overrides);
  const response = await postConsent(person, { ...params, orgId: options.orgId ?? person.orgId, decision: "allow" });
  expect(response.status, await response.clone().text()).toBe(200);
  const redirectTo = new URL(((await response.json()) as { redirectTo: string }).redirectTo);
  expect(redirectTo.searchParams.get("state")).toBe(params.state);
  return { code: redirectTo.searchParams.get("code")!, verifier, params };
}

/**
 * POST /oauth/token (or another OAuth endpoint) with a form body; `basic` authenticates the client
 * by HTTP Basic; `address` is the client's (CF-Connecting-IP; the test's own unless given).
 */
export async function tokenRequest(
  form: Record<string, string>,
  options: { basic?: [string, string]; path?: string; address?: string } = {},
) {
  const address = options.address ?? testClientAddress();
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": address };
  if (options.basic)
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(options.basic[0])}:${encodeURIComponent(options.basic[1])}`).toString("base64")}`;
  const response = await fetch(new URL(options.path ?? "/oauth/token", workerUrl()), {
    method: "POST",
    headers,
    body: new URLSearchParams(form),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** The client's credentials in the body: client_id, and client_secret for a confidential one. */
export const clientForm = (app: RegisteredApp) => ({
  client_id: app.clientId,
  ...(app.clientSecret ? { client_secret: app.clientSecret } : {}),
});

/** The authorization-code flow to its tokens: consent, then the exchange (asserting 200). */
export async function tokensFor(
  app: RegisteredApp,
  person: Person,
  options: { orgId?: string; overrides?: Partial<AuthorizeParams> } = {},
) {
  const { code, verifier, params } = await consentCode(app, person, options);
  const exchanged = await tokenRequest({
    grant_type: "authorization_code",
    code,
    redirect_uri: params.redirect_uri,
    code_verifier: verifier,
    ...(params.resource ? { resource: params.resource } : {}),
    ...clientForm(app),
  });
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  return exchanged.body as { access_token: string; refresh_token: string; scope: string; expires_in: number; token_type: string };
}

/** Every row the authorization server keeps for an application: what a refused token request must leave as it was. */
export async function oauthTrace(applicationId: string) {
  const [installations, grants, tokens] = await Promise.all([
    query(`select * from installations where application_id = $1 order by id`, [applicationId]),
    query(`select g.* from oauth_grants g join installations i on i.id = g.installation_id where i.application_id = $1 order by g.id`, [
      applicationId,
    ]),
    query(
      `select t.* from oauth_tokens t join oauth_grants g on g.id = t.grant_id join installations i on i.id = g.installation_id
        where i.application_id = $1 order by t.id`,
      [applicationId],
    ),
  ]);
  // last_used_at is bookkeeping: a refused call with a live token still counts as its use.
  return { installations: installations.map(({ last_used_at: _, ...row }) => row), grants, tokens };
}
