import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, workerUrl } from "../helpers/api.ts";
import { signUp } from "../helpers/people.ts";
import { clientForm, consentCode, oauthTrace, postConsent, authorizationRequest, registerApp, tokenRequest, tokensFor } from "./helpers.ts";

// The security probe of the OAuth endpoints (docs/apps.md "Security"), continued: a code is bound
// to its client, redirect URI and PKCE verifier and `state` cannot smuggle parameters; no
// credential stands in for another; a refresh token is its client's; client credentials are for a
// confidential client; a refresh cannot widen its grant. Each refusal leaves every row as it was.

const origin = () => new URL(workerUrl()).origin;

describe("code injection and state", () => {
  it("state comes back exactly as sent, and cannot add a code, an iss or a fragment", async () => {
    const owner = await signUp();
    const app = await registerApp(owner, { redirectUris: ["https://client.example.com/callback?tenant=7"] });
    const state = "s&code=opsroom_ac_evil&iss=https://evil.example#frag";
    const { params } = authorizationRequest(app, { state });
    const answer = await postConsent(owner, { ...params, orgId: owner.orgId, decision: "allow" });
    const redirectTo = new URL(((await answer.json()) as { redirectTo: string }).redirectTo);
    expect(`${redirectTo.origin}${redirectTo.pathname}`).toBe("https://client.example.com/callback");
    expect(redirectTo.hash).toBe("");
    expect(redirectTo.searchParams.getAll("tenant")).toEqual(["7"]);
    expect(redirectTo.searchParams.getAll("state")).toEqual([state]);
    expect(redirectTo.searchParams.getAll("code")).toHaveLength(1);
    expect(redirectTo.searchParams.get("code")).toMatch(/^opsroom_ac_[0-9A-Za-z]{43}$/);
    expect(redirectTo.searchParams.getAll("iss")).toEqual([origin()]);
    // Without state, none comes back.
    const { params: stateless } = authorizationRequest(app, { state: undefined });
    delete (stateless as Partial<typeof stateless>).state;
    const plain = await postConsent(owner, { ...stateless, orgId: owner.orgId, decision: "allow" });
    expect(new URL(((await plain.json()) as { redirectTo: string }).redirectTo).searchParams.has("state")).toBe(false);
  });

  it("a victim's code injected into an attacker's exchange: without the victim's verifier it is worth nothing, and stays unspent", async () => {
    const victim = await signUp();
    const app = await registerApp(victim);
    const stolen = await consentCode(app, victim);
    // The attacker holds the code but not the verifier, and runs a flow of its own for a verifier it knows.
    const attackerFlow = await consentCode(app, victim);
    const before = await oauthTrace(app.id);
    const exchangeWith = (verifier: string) =>
      tokenRequest({
        grant_type: "authorization_code",
        code: stolen.code,
        redirect_uri: stolen.params.redirect_uri,
        code_verifier: verifier,
        ...clientForm(app),
      });
    expect((await exchangeWith(attackerFlow.verifier)).body.error).toBe("invalid_grant");
    expect(await oauthTrace(app.id)).toEqual(before);
    // The victim's own exchange still works: the failed injection did not spend the code.
    const own = await exchangeWith(stolen.verifier);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });
});

describe("no credential stands in for another", () => {
  it("a code, access token, refresh token or client secret is refused where another kind is expected", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const { code, verifier, params } = await consentCode(app, owner);
    const tokens = await tokensFor(app, owner);
    const before = await oauthTrace(app.id);
    for (const presented of [code, tokens.access_token, app.clientSecret!]) {
      const refreshed = await tokenRequest({ grant_type: "refresh_token", refresh_token: presented, ...clientForm(app) });
      expect(refreshed.body.error, presented.slice(0, 11)).toBe("invalid_grant");
    }
    for (const presented of [tokens.refresh_token, tokens.access_token]) {
      const exchanged = await tokenRequest({
        grant_type: "authorization_code",
        code: presented,
        redirect_uri: params.redirect_uri,
        code_verifier: verifier,
        ...clientForm(app),
      });
      expect(exchanged.body.error).toBe("invalid_grant");
    }
    for (const presented of [code, tokens.refresh_token, app.clientSecret!])
      expectError(await api("/v1", { key: presented }), 401, "invalid_key");
    expect(await oauthTrace(app.id)).toEqual(before);
    expectSuccess(await api("/v1", { key: tokens.access_token }));
  });
});

describe("refresh tokens are their client's; client credentials a confidential client's", () => {
  it("another client, a client without its secret, or with another's: refused, and the grant lives on", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const other = await registerApp(owner);
    const publicApp = await registerApp(owner, { public: true, redirectUris: ["http://127.0.0.1/cb"] });
    const { refresh_token } = await tokensFor(app, owner);
    const before = await oauthTrace(app.id);
    const attempts: [Record<string, string>, [string, string] | undefined, string][] = [
      [clientForm(other), undefined, "invalid_grant"],
      [clientForm(publicApp), undefined, "invalid_grant"],
      [{ client_id: app.clientId }, undefined, "invalid_client"],
      [{}, [app.clientId, other.clientSecret!], "invalid_client"],
    ];
    for (const [client, basic, error] of attempts) {
      const refused = await tokenRequest({ grant_type: "refresh_token", refresh_token, ...client }, basic ? { basic } : {});
      expect(refused.body.error, JSON.stringify(client)).toBe(error);
    }
    expect(await oauthTrace(app.id)).toEqual(before);
    expect((await tokenRequest({ grant_type: "refresh_token", refresh_token, ...clientForm(app) })).status).toBe(200);
  });

  it("client credentials: a public client is unauthorized_client even when installed, and a made-up secret is no secret", async () => {
    const owner = await signUp();
    const publicApp = await registerApp(owner, { public: true, redirectUris: ["http://127.0.0.1/cb"] });
    await tokensFor(publicApp, owner, { overrides: { redirect_uri: "http://127.0.0.1/cb" } });
    const before = await oauthTrace(publicApp.id);
    const asked = await tokenRequest({ grant_type: "client_credentials", ...clientForm(publicApp) });
    expect(asked.body.error).toBe("unauthorized_client");
    const withSecret = await tokenRequest({
      grant_type: "client_credentials",
      client_id: publicApp.clientId,
      client_secret: `opsroom_cs_${"a".repeat(43)}`,
    });
    expect(withSecret.status).toBe(401);
    expect(withSecret.body.error).toBe("invalid_client");
    expect(await oauthTrace(publicApp.id)).toEqual(before);
  });
});

describe("scope escalation on refresh", () => {
  it("a refresh cannot take a scope its grant lacks, though the application or the installation holds it", async () => {
    const owner = await signUp();
    const app = await registerApp(owner, { scopes: ["tasks.manage", "projects.read"] });
    // The installation holds projects.read (a first grant) and tasks.read (this one).
    await tokensFor(app, owner, { overrides: { scope: "projects.read" } });
    const narrow = await tokensFor(app, owner, { overrides: { scope: "tasks.read" } });
    expect(narrow.scope).toBe("tasks.read");
    const before = await oauthTrace(app.id);
    for (const scope of ["tasks.manage", "projects.read", "tasks.read projects.read", "audit.read", "tasks.read organisation.manage"]) {
      const wider = await tokenRequest({ grant_type: "refresh_token", refresh_token: narrow.refresh_token, scope, ...clientForm(app) });
      expect(wider.body.error, scope).toBe("invalid_scope");
    }
    expect(await oauthTrace(app.id)).toEqual(before);
    const same = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: narrow.refresh_token,
      scope: "tasks.read",
      ...clientForm(app),
    });
    expect(same.body.scope).toBe("tasks.read");
    expectError(await api("/v1/projects", { key: same.body.access_token }), 403, "insufficient_scope");
  });
});
