import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, workerUrl } from "../helpers/api.ts";
import { query, snapshot } from "../helpers/database.ts";
import { asPerson, signUp, type Person } from "../helpers/people.ts";
import {
  authorizationRequest,
  authorize,
  clientForm,
  consentCode,
  oauthTrace,
  pkce,
  registerApp,
  tokenRequest,
  tokensFor,
  type RegisteredApp,
} from "./helpers.ts";

// Every refusal of the authorization and token endpoints (docs/apps.md "Errors"): the RFC 6749 error,
// and nothing changed (no installation, grant or token written or used; the organisation's data as
// it was). The one refusal that writes is a reused code: it revokes the tokens the code gave.

async function withCode(options: { body?: Record<string, unknown> } = {}) {
  const owner = await signUp();
  const app = await registerApp(owner, options.body);
  const consented = await consentCode(app, owner);
  return { owner, app, ...consented };
}

const exchange = (app: RegisteredApp, fields: Record<string, string>) =>
  tokenRequest({ grant_type: "authorization_code", ...clientForm(app), ...fields });

/** The exchange of `fields` by `presenter`, refused with `error` and changing nothing. */
const refusedExchange = (
  owner: Person,
  app: RegisteredApp,
  presenter: RegisteredApp,
  fields: Record<string, string>,
  error: string,
  status = 400,
) => expectRefusedUnchanged(owner, app, () => exchange(presenter, fields), status, error);

/** Runs `refused`, expects its OAuth error, and that neither the application's rows nor the organisation changed. */
async function expectRefusedUnchanged(
  owner: Person,
  app: RegisteredApp,
  refused: () => Promise<{ status: number; body: any; headers: Headers }>,
  status: number,
  error: string,
) {
  const [trace, org] = [await oauthTrace(app.id), await snapshot(owner.orgId)];
  const response = await refused();
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toEqual({ error, error_description: expect.any(String) });
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(await oauthTrace(app.id)).toEqual(trace);
  expect(await snapshot(owner.orgId)).toEqual(org);
}

describe("the token endpoint's refusals change nothing", () => {
  it("a wrong code_verifier, or one of the wrong shape: invalid_grant", async () => {
    const { owner, app, code, params } = await withCode();
    for (const verifier of [pkce().verifier, "short", "x".repeat(129)])
      await refusedExchange(owner, app, app, { code, redirect_uri: params.redirect_uri, code_verifier: verifier }, "invalid_grant");
  });

  it("another redirect_uri than the authorization request's: invalid_grant", async () => {
    const { owner, app, code, verifier } = await withCode({
      body: { redirectUris: ["https://client.example.com/callback", "https://client.example.com/other"] },
    });
    await refusedExchange(
      owner,
      app,
      app,
      { code, redirect_uri: "https://client.example.com/other", code_verifier: verifier },
      "invalid_grant",
    );
  });

  it("an expired code: invalid_grant", async () => {
    const { owner, app, code, params, verifier } = await withCode();
    await query(
      `update oauth_grants set code_expires_at = now() - interval '1 second' where installation_id in (select id from installations where application_id = $1)`,
      [app.id],
    );
    await refusedExchange(owner, app, app, { code, redirect_uri: params.redirect_uri, code_verifier: verifier }, "invalid_grant");
  });

  it("a wrong client secret, an unknown client, none at all: invalid_client (401)", async () => {
    const { owner, app, code, params, verifier } = await withCode();
    const fields = { code, redirect_uri: params.redirect_uri, code_verifier: verifier };
    const other = await registerApp(owner);
    const wrongSecrets = [
      () => tokenRequest({ grant_type: "authorization_code", ...fields, client_id: app.clientId, client_secret: other.clientSecret! }),
      () => tokenRequest({ grant_type: "authorization_code", ...fields }, { basic: [app.clientId, "opsroom_cs_nope"] }),
      () => tokenRequest({ grant_type: "authorization_code", ...fields, client_id: app.clientId }),
      () =>
        tokenRequest({
          grant_type: "authorization_code",
          ...fields,
          client_id: "app_0000000000000000000000",
          client_secret: app.clientSecret!,
        }),
    ];
    for (const refused of wrongSecrets) await expectRefusedUnchanged(owner, app, refused, 401, "invalid_client");
  });

  it("another application's code (presented by a client that did not get it): invalid_grant", async () => {
    const { owner, app, code, params, verifier } = await withCode();
    const other = await registerApp(owner);
    await refusedExchange(owner, app, other, { code, redirect_uri: params.redirect_uri, code_verifier: verifier }, "invalid_grant");
  });

  it("missing parameters: invalid_request; an unknown grant type: unsupported_grant_type; a JSON body: invalid_request", async () => {
    const { owner, app, code, params, verifier } = await withCode();
    await refusedExchange(owner, app, app, { code, redirect_uri: params.redirect_uri }, "invalid_request");
    await refusedExchange(owner, app, app, { code_verifier: verifier, redirect_uri: params.redirect_uri }, "invalid_request");
    await expectRefusedUnchanged(
      owner,
      app,
      () => tokenRequest({ grant_type: "password", ...clientForm(app) }),
      400,
      "unsupported_grant_type",
    );
    await expectRefusedUnchanged(
      owner,
      app,
      async () => {
        const response = await fetch(new URL("/oauth/token", workerUrl()), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ grant_type: "authorization_code" }),
        });
        return { status: response.status, headers: response.headers, body: await response.json() };
      },
      400,
      "invalid_request",
    );
  });

  it("a code used twice: invalid_grant, and the tokens it gave are revoked at once", async () => {
    const { owner, app, code, params, verifier } = await withCode();
    const fields = { code, redirect_uri: params.redirect_uri, code_verifier: verifier };
    const first = await exchange(app, fields);
    expect(first.status).toBe(200);
    expectSuccess(await api("/v1", { key: first.body.access_token }));
    const again = await exchange(app, fields);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    expectError(await api("/v1", { key: first.body.access_token }), 401, "invalid_key");
    const refreshed = await tokenRequest({ grant_type: "refresh_token", refresh_token: first.body.refresh_token, ...clientForm(app) });
    expect(refreshed.body.error).toBe("invalid_grant");
    // The installation stays: only that grant is revoked.
    expect((expectSuccess(await asPerson(owner.cookie, "/v1/settings/installations")).data as unknown[]).length).toBe(1);
  });
});

describe("the authorization endpoint's refusals", () => {
  it("an unknown client, or a redirect_uri not registered exactly: a page for the person, never a redirect", async () => {
    const owner = await signUp();
    const app = await registerApp(owner, { redirectUris: ["https://client.example.com/callback", "http://127.0.0.1/cb"] });
    const { params } = authorizationRequest(app);
    const refused = [
      { ...params, client_id: "app_0000000000000000000000" },
      { ...params, client_id: "not-a-client" },
      { ...params, redirect_uri: "https://evil.example.com/callback" },
      { ...params, redirect_uri: "https://client.example.com/callback/more" },
      { ...params, redirect_uri: "https://client.example.com/callback?x=1" },
      { ...params, redirect_uri: "https://client.example.com/CALLBACK" },
      { ...params, redirect_uri: "http://client.example.com/callback" },
      { ...params, redirect_uri: "https://client.example.com.evil.example/callback" },
      // A loopback URI takes any port; an https one does not, nor does another loopback path or host.
      { ...params, redirect_uri: "https://client.example.com:8443/callback" },
      { ...params, redirect_uri: "http://127.0.0.1:5000/other" },
      { ...params, redirect_uri: "http://localhost:5000/cb" },
      { ...params, redirect_uri: "http://127.0.0.1:5000@evil.example/cb" },
      { ...params, redirect_uri: undefined as unknown as string },
    ];
    for (const query of refused) {
      const response = await authorize(query);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(response.headers.get("content-type")).toContain("text/html");
    }
    // The same parameter twice: refused, shown.
    const twice = await authorize(params, `&redirect_uri=${encodeURIComponent("https://evil.example.com/")}`);
    expect(twice.status).toBe(400);
    expect(twice.headers.get("location")).toBeNull();
    // A loopback redirect URI on another port is the same URI (RFC 8252 §7.3).
    const loopback = await authorize({ ...params, redirect_uri: "http://127.0.0.1:49152/cb" });
    expect(loopback.status).toBe(302);
    expect(new URL(loopback.headers.get("location")!, workerUrl()).pathname).toBe("/consent.html");
  });

  it("plain or missing PKCE, a scope beyond the application's, another response type: back to the client with the error, state and iss", async () => {
    const owner = await signUp();
    const app = await registerApp(owner, { scopes: ["tasks.read"] });
    const { params } = authorizationRequest(app, { scope: "tasks.read" });
    const cases: [Record<string, string | undefined>, string][] = [
      [{ code_challenge_method: "plain", code_challenge: "x".repeat(43) }, "invalid_request"],
      [{ code_challenge_method: undefined }, "invalid_request"],
      [{ code_challenge: undefined }, "invalid_request"],
      [{ code_challenge: "short" }, "invalid_request"],
      [{ scope: "tasks.read tasks.manage" }, "invalid_scope"],
      [{ scope: "tasks.read everything" }, "invalid_scope"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ resource: "https://elsewhere.example.com" }, "invalid_target"],
    ];
    for (const [change, error] of cases) {
      const query = { ...params, ...change } as Record<string, string>;
      for (const name of Object.keys(query)) if (query[name] === undefined) delete query[name];
      const response = await authorize(query);
      expect(response.status, JSON.stringify(change)).toBe(302);
      const location = new URL(response.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`).toBe(app.redirectUri);
      expect(location.searchParams.get("error"), JSON.stringify(change)).toBe(error);
      expect(location.searchParams.get("state")).toBe(params.state);
      expect(location.searchParams.get("iss")).toBe(new URL(workerUrl()).origin);
    }
    expect(await oauthTrace(app.id)).toEqual({ installations: [], grants: [], tokens: [] });
  });
});

describe("client secret rotation", () => {
  it("the previous secret works during the overlap, and not after; with no overlap, not at all", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const old = app.clientSecret!;
    const rotated = expectSuccess(
      await asPerson(owner.cookie, `/v1/settings/applications/${app.id}/secret`, { body: { overlapSeconds: 3600 } }),
    ).data as any;
    expect(rotated.clientSecret).toMatch(/^opsroom_cs_/);
    expect(Date.parse(rotated.previousSecretExpiresAt)).toBeGreaterThan(Date.now() + 3500_000);
    await tokensFor({ ...app, clientSecret: old }, owner);
    await tokensFor({ ...app, clientSecret: rotated.clientSecret }, owner);
    // The overlap ends.
    await query(`update applications set previous_secret_expires_at = now() - interval '1 second' where id = $1`, [app.id]);
    const { code, params, verifier } = await consentCode(app, owner);
    await refusedExchange(
      owner,
      app,
      { ...app, clientSecret: old },
      { code, redirect_uri: params.redirect_uri, code_verifier: verifier },
      "invalid_client",
      401,
    );
    // No overlap: the secret it replaced is refused at once.
    const again = expectSuccess(await asPerson(owner.cookie, `/v1/settings/applications/${app.id}/secret`, { body: { overlapSeconds: 0 } }))
      .data as any;
    expect(again.previousSecretExpiresAt).toBeNull();
    await refusedExchange(
      owner,
      app,
      { ...app, clientSecret: rotated.clientSecret },
      { code, redirect_uri: params.redirect_uri, code_verifier: verifier },
      "invalid_client",
      401,
    );
    expect(
      (await exchange({ ...app, clientSecret: again.clientSecret }, { code, redirect_uri: params.redirect_uri, code_verifier: verifier }))
        .status,
    ).toBe(200);
  });
});
