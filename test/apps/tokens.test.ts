import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, workerUrl } from "../helpers/api.ts";
import { memberOf, signUp } from "../helpers/people.ts";
import { clientForm, oauthTrace, registerApp, tokenRequest, tokensFor } from "./helpers.ts";

// Refresh rotation with reuse detection, client credentials, revocation (RFC 7009) and discovery
// (RFC 8414, RFC 9728), through the real stack (docs/apps.md).

const refresh = (app: Awaited<ReturnType<typeof registerApp>>, token: string) =>
  tokenRequest({ grant_type: "refresh_token", refresh_token: token, ...clientForm(app) });

describe("refresh tokens", () => {
  it("rotate on every use; presenting a spent one revokes the whole grant", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const first = await tokensFor(app, owner);
    const second = await refresh(app, first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: first.scope });
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.headers.get("cache-control")).toBe("no-store");
    expectSuccess(await api("/v1", { key: second.body.access_token }));
    // The first refresh token again: reuse. The grant is revoked, every token of it refused.
    const reused = await refresh(app, first.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    for (const token of [first.access_token, second.body.access_token]) expectError(await api("/v1", { key: token }), 401, "invalid_key");
    expect((await refresh(app, second.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("another client's refresh token, or a scope beyond the grant: refused, nothing changed", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const other = await registerApp(owner);
    const tokens = await tokensFor(app, owner);
    const before = await oauthTrace(app.id);
    expect((await refresh(other, tokens.refresh_token)).body.error).toBe("invalid_grant");
    const wider = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      scope: "organisation.read",
      ...clientForm(app),
    });
    expect(wider.body.error).toBe("invalid_scope");
    expect(await oauthTrace(app.id)).toEqual(before);
    expect((await refresh(app, tokens.refresh_token)).status).toBe(200);
  });

  it("asking for a narrower scope gets it (RFC 6749 §6); the new refresh token keeps the whole grant", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const tokens = await tokensFor(app, owner);
    expect(tokens.scope).toBe("projects.read tasks.read tasks.manage");
    const narrow = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      scope: "tasks.read",
      ...clientForm(app),
    });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe("tasks.read");
    const self = expectSuccess(await api("/v1", { key: narrow.body.access_token })) as any;
    expect(self.scopes.map((s: { scope: string }) => s.scope)).toEqual(["tasks.read"]);
    expectSuccess(await api("/v1/tasks", { key: narrow.body.access_token }));
    expectError(await api("/v1/projects", { key: narrow.body.access_token }), 403, "insufficient_scope", { scope: "projects.read" });
    expectError(await api("/v1/tasks", { key: narrow.body.access_token, body: {} }), 403, "insufficient_scope", { scope: "tasks.manage" });
    // The refresh token it came with still holds the grant: refreshed without a scope, the whole of it.
    const whole = await refresh(app, narrow.body.refresh_token);
    expect(whole.body.scope).toBe("projects.read tasks.read tasks.manage");
    expectSuccess(await api("/v1/projects", { key: whole.body.access_token }));
  });
});

describe("client credentials", () => {
  it("an installed confidential application acts as itself: no refresh token, events without onBehalfOf", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    await tokensFor(app, owner);
    const issued = await tokenRequest(
      { grant_type: "client_credentials", scope: "tasks.read" },
      { basic: [app.clientId, app.clientSecret!] },
    );
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body).toEqual({
      access_token: expect.stringMatching(/^opsroom_at_/),
      token_type: "Bearer",
      expires_in: 3600,
      scope: "tasks.read",
    });
    const self = expectSuccess(await api("/v1", { key: issued.body.access_token })) as any;
    expect(self.scopes.map((s: { scope: string }) => s.scope)).toEqual(["tasks.read"]);
    // Everything the installation allows when no scope is asked.
    const all = await tokenRequest({ grant_type: "client_credentials", ...clientForm(app) });
    expect(all.body.scope).toBe("projects.read tasks.read tasks.manage");
  });

  it("refused for a public client, an application installed nowhere or in another organisation, a scope beyond the installation", async () => {
    const owner = await signUp();
    const app = await registerApp(owner, { scopes: ["tasks.manage", "organisation.read"] });
    const publicApp = await registerApp(owner, { public: true, redirectUris: ["http://127.0.0.1/cb"] });
    const before = await oauthTrace(app.id);
    expect((await tokenRequest({ grant_type: "client_credentials", ...clientForm(app) })).body.error).toBe("invalid_grant");
    expect((await tokenRequest({ grant_type: "client_credentials", ...clientForm(publicApp) })).body.error).toBe("unauthorized_client");
    // Installed by a member: what the member's role allowed, no more.
    const member = await memberOf(owner, "member");
    await tokensFor(app, member, { overrides: { scope: "tasks.manage organisation.read" } });
    const other = await signUp();
    const elsewhere = await tokenRequest({ grant_type: "client_credentials", organisation_id: other.orgId, ...clientForm(app) });
    expect(elsewhere.body.error).toBe("invalid_grant");
    const beyond = await tokenRequest({ grant_type: "client_credentials", scope: "financials.read", ...clientForm(app) });
    expect(beyond.body.error).toBe("invalid_scope");
    expect((await oauthTrace(app.id)).tokens.length).toBeGreaterThan(before.tokens.length);
  });
});

describe("revocation (RFC 7009)", () => {
  it("an access token alone; 200 for an unknown one; another client's token is left alone", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const other = await registerApp(owner);
    const tokens = await tokensFor(app, owner);
    const revoke = (client: typeof app, token: string) => tokenRequest({ token, ...clientForm(client) }, { path: "/oauth/revoke" });
    expect((await revoke(other, tokens.access_token)).status).toBe(200);
    expectSuccess(await api("/v1", { key: tokens.access_token }));
    expect((await revoke(app, "opsroom_at_unknown")).status).toBe(200);
    expect((await revoke(app, tokens.access_token)).status).toBe(200);
    expectError(await api("/v1", { key: tokens.access_token }), 401, "invalid_key");
    // The refresh token still works: a new access token.
    expect((await refresh(app, tokens.refresh_token)).status).toBe(200);
    expect(
      (
        await tokenRequest(
          { token: tokens.refresh_token, client_id: app.clientId, client_secret: "opsroom_cs_wrong" },
          { path: "/oauth/revoke" },
        )
      ).status,
    ).toBe(401);
  });
});

describe("discovery", () => {
  it("the authorization server's metadata (RFC 8414) and the protected resource's (RFC 9728)", async () => {
    const origin = new URL(workerUrl()).origin;
    const as = (await (await fetch(new URL("/.well-known/oauth-authorization-server", workerUrl()))).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      registration_endpoint: `${origin}/oauth/register`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.scopes_supported).toContain("tasks.manage");
    const resource = await (await fetch(new URL("/.well-known/oauth-protected-resource", workerUrl()))).json();
    expect(resource).toMatchObject({ resource: origin, authorization_servers: [origin], bearer_methods_supported: ["header"] });
    const unauthorised = await api("/v1/tasks", { key: "opsroom_at_" + "x".repeat(43) });
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers.get("www-authenticate")).toBe(
      `Bearer realm="opsroom", resource_metadata="${origin}/.well-known/oauth-protected-resource"`,
    );
  });
});
