import { describe, expect, it } from "vitest";
import { clientForm, consentCode, registerApp, tokenRequest, type RegisteredApp } from "../apps/helpers.ts";
import { auditRows, expectFromThisRequest, expectOneEntry, writerOf } from "../helpers/audit.ts";
import { query } from "../helpers/database.ts";
import { signUp, type Person } from "../helpers/people.ts";

// The token endpoint in the audit log (docs/audit-log.md), found missing by the fourth security
// probe: tokens issued (a code exchanged, a refresh, client credentials) and tokens revoked
// (RFC 7009), each one entry in the statement that issued or revoked them, naming the application
// (and the person it acts for), the installation, the grant and the scopes; never a token. A
// refused request, or revoking a token already revoked or unknown, records nothing.

const appActor = (app: RegisteredApp, person?: Person) => ({
  type: "app",
  id: app.id,
  name: app.name,
  ...(person ? { onBehalfOf: { type: "user", id: person.userId, name: person.name } } : {}),
});

const installationOf = async (app: RegisteredApp) =>
  (await query<{ id: string }>("select id from installations where application_id = $1", [app.id]))[0]!.id;

describe("audit: tokens", () => {
  it("a code exchanged, a refresh (narrower: the scopes the access token holds), client credentials: application.token_issued", async () => {
    const owner = await signUp({ name: "Barbara Liskov" });
    const app = await registerApp(owner);
    const { code, verifier, params } = await consentCode(app, owner);
    const exchange = {
      grant_type: "authorization_code",
      code,
      redirect_uri: params.redirect_uri,
      code_verifier: verifier,
      ...clientForm(app),
    };
    let tokens: Record<string, string> = {};
    const exchanged = await expectOneEntry(owner.orgId, "application.token_issued", async () => {
      tokens = (await tokenRequest(exchange)).body;
    });
    const [grant] = await query<{ grant_id: string }>(
      "select g.id as grant_id from oauth_grants g join installations i on i.id = g.installation_id where i.application_id = $1",
      [app.id],
    );
    expect(exchanged).toMatchObject({
      actor: appActor(app, owner),
      target: { type: "installation", id: await installationOf(app), name: app.name },
      changes: {
        grantType: { from: null, to: "authorization_code" },
        grant: { from: null, to: grant!.grant_id },
        scopes: { from: null, to: ["projects.read", "tasks.read", "tasks.manage"] },
      },
    });
    expectFromThisRequest(exchanged);
    // In the exchange's own commit: the statement that spent the code wrote it.
    expect(exchanged.xmin).toBe(await writerOf("oauth_grants", grant!.grant_id));
    for (const token of Object.values(tokens)) expect(JSON.stringify(exchanged)).not.toContain(token);

    const refreshed = await expectOneEntry(owner.orgId, "application.token_issued", async () => {
      const answer = await tokenRequest({
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token!,
        scope: "tasks.read",
        ...clientForm(app),
      });
      expect(answer.status).toBe(200);
    });
    expect(refreshed.changes).toEqual({
      grantType: { from: null, to: "refresh_token" },
      grant: { from: null, to: grant!.grant_id },
      scopes: { from: null, to: ["tasks.read"] },
    });

    const issued = await expectOneEntry(owner.orgId, "application.token_issued", async () => {
      expect((await tokenRequest({ grant_type: "client_credentials", ...clientForm(app) })).status).toBe(200);
    });
    expect(issued.actor).toEqual(appActor(app));
    expect(issued.changes).toMatchObject({ grantType: { from: null, to: "client_credentials" } });

    // Refused: a wrong verifier, a scope beyond the installation: no token_issued.
    const before = (await auditRows(owner.orgId)).length;
    const again = await consentCode(app, owner);
    const wrong = { ...exchange, code: again.code, redirect_uri: again.params.redirect_uri, code_verifier: "x".repeat(43) };
    expect((await tokenRequest(wrong)).body).toMatchObject({ error: "invalid_grant" });
    expect((await tokenRequest({ grant_type: "client_credentials", scope: "audit.read", ...clientForm(app) })).body).toMatchObject({
      error: "invalid_scope",
    });
    expect((await auditRows(owner.orgId)).slice(before).map((row) => row.action)).toEqual([]);
  });

  it("RFC 7009: an access token revoked, a refresh token with its grant; unknown or already revoked: nothing", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const { code, verifier, params } = await consentCode(app, owner);
    const tokens = (
      await tokenRequest({
        grant_type: "authorization_code",
        code,
        redirect_uri: params.redirect_uri,
        code_verifier: verifier,
        ...clientForm(app),
      })
    ).body as Record<string, string>;
    const revoke = (token: string) => tokenRequest({ token, ...clientForm(app) }, { path: "/oauth/revoke" });

    const access = await expectOneEntry(owner.orgId, "application.token_revoked", async () => {
      expect((await revoke(tokens.access_token!)).status).toBe(200);
    });
    expect(access).toMatchObject({ actor: appActor(app, owner), changes: { token: { from: "access", to: null } } });
    expectFromThisRequest(access);
    const [grant] = await query<{ id: string }>(
      "select g.id from oauth_grants g join installations i on i.id = g.installation_id where i.application_id = $1",
      [app.id],
    );
    const refresh = await expectOneEntry(owner.orgId, "application.token_revoked", async () => {
      expect((await revoke(tokens.refresh_token!)).status).toBe(200);
    });
    expect(refresh.changes).toEqual({ token: { from: "refresh", to: null }, grantRevoked: { from: null, to: grant!.id } });
    expect(JSON.stringify([access, refresh])).not.toContain(tokens.refresh_token);

    const before = await auditRows(owner.orgId);
    for (const token of [tokens.access_token!, "opsroom_at_" + "A".repeat(43)]) expect((await revoke(token)).status).toBe(200);
    expect(await auditRows(owner.orgId)).toEqual(before);
  });
});
