import { describe, expect, it } from "vitest";
import { clientForm, consentCode, postConsent, authorizationRequest, registerApp, tokenRequest, tokensFor } from "../apps/helpers.ts";
import { expectError, expectSuccess } from "../helpers/api.ts";
import { auditRows, expectFromThisRequest, expectOneEntry, readAuditLog, verify, writerOf } from "../helpers/audit.ts";
import { asPerson, memberOf, signUp, type Person } from "../helpers/people.ts";

// OAuth applications in the audit log: registered, changed, secret rotated, deleted in the settings
// area; installed (or widened) by a consent; uninstalled; a grant revoked for a reused code or
// refresh token; the organisation's application settings changed. One entry each, in the commit
// of the change, with who, what and from where; never a secret; a refusal or a no-op records none.

const APPS = "/v1/settings/applications";
const personActor = (person: Person) => ({ type: "user", id: person.userId, name: person.name });
const installationOf = async (owner: Person) =>
  (expectSuccess(await asPerson(owner.cookie, "/v1/settings/installations")).data as Array<{ id: string; scopes: string[] }>)[0]!;

describe("audit: applications in the settings area", () => {
  it("registered: the person, the application, what it may do; never its secret; refusals record nothing", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    let app: Awaited<ReturnType<typeof registerApp>> | undefined;
    const entry = await expectOneEntry(owner.orgId, "application.registered", async () => {
      app = await registerApp(owner, { name: "Planner" });
    });
    expect(entry.actor).toEqual(personActor(owner));
    expect(entry.target).toEqual({ type: "application", id: app!.id, name: "Planner" });
    expect(entry.changes).toEqual({
      name: { from: null, to: "Planner" },
      redirectUris: { from: null, to: [app!.redirectUri] },
      scopes: { from: null, to: ["projects.read", "tasks.read", "tasks.manage"] },
      public: { from: null, to: false },
    });
    expect(JSON.stringify(entry)).not.toContain(app!.clientSecret);
    expectFromThisRequest(entry);
    expect(entry.xmin).toBe(await writerOf("applications", app!.id));

    const before = await auditRows(owner.orgId);
    const body = { name: "X", redirectUris: ["https://client.example.com/cb"], scopes: ["tasks.read"] };
    expectError(await asPerson(member.cookie, APPS, { body }), 403, "insufficient_role");
    expectError(
      await asPerson(owner.cookie, APPS, { body: { ...body, redirectUris: ["http://evil.example.com/cb"] } }),
      400,
      "invalid_field",
    );
    expect(await auditRows(owner.orgId)).toEqual(before);
  });

  it("changed (each field from, to), secret rotated (when the old one stops), deleted; a no-op and refusals none", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const app = await registerApp(owner);
    const updated = await expectOneEntry(owner.orgId, "application.updated", async () => {
      expectSuccess(
        await asPerson(admin.cookie, `${APPS}/${app.id}`, { method: "PATCH", body: { redirectUris: ["https://new.example.com/cb"] } }),
      );
    });
    expect(updated.actor).toEqual(personActor(admin));
    expect(updated.target).toEqual({ type: "application", id: app.id, name: app.name });
    expect(updated.changes).toEqual({ redirectUris: { from: [app.redirectUri], to: ["https://new.example.com/cb"] } });
    expectFromThisRequest(updated);
    expect(updated.xmin).toBe(await writerOf("applications", app.id));

    const before = await auditRows(owner.orgId);
    expectSuccess(await asPerson(owner.cookie, `${APPS}/${app.id}`, { method: "PATCH", body: { name: app.name } }));
    expectError(
      await asPerson(owner.cookie, `${APPS}/${app.id}`, { method: "PATCH", body: { redirectUris: ["ftp://x"] } }),
      400,
      "invalid_field",
    );
    expect(await auditRows(owner.orgId)).toEqual(before);

    let secret = "";
    const rotated = await expectOneEntry(owner.orgId, "application.secret_rotated", async () => {
      secret = expectSuccess(await asPerson(owner.cookie, `${APPS}/${app.id}/secret`, { body: { overlapSeconds: 3600 } })).data
        .clientSecret;
    });
    const expiresAt = (rotated.changes as any).previousSecretExpiresAt.to as string;
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(3500_000);
    expect(JSON.stringify(rotated)).not.toContain(secret);
    expect(JSON.stringify(rotated)).not.toContain(app.clientSecret);
    expectFromThisRequest(rotated);

    await tokensFor({ ...app, redirectUri: "https://new.example.com/cb", clientSecret: secret }, owner);
    const deleted = await expectOneEntry(owner.orgId, "application.deleted", async () => {
      expectSuccess(await asPerson(owner.cookie, `${APPS}/${app.id}`, { method: "DELETE" }));
    });
    expect(deleted.target).toEqual({ type: "application", id: app.id, name: app.name });
    expect(deleted.changes).toEqual({ installations: { from: 1, to: 0 } });
    expect(deleted.xmin).toBe(await writerOf("applications", app.id));
    const after = await auditRows(owner.orgId);
    expectError(await asPerson(owner.cookie, `${APPS}/${app.id}`, { method: "DELETE" }), 404, "not_found");
    expect(await auditRows(owner.orgId)).toEqual(after);
  });
});

describe("audit: installing and uninstalling", () => {
  it("installed by consent with the scopes granted; widened by a consent asking more; the same again, or refused, none", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const installed = await expectOneEntry(owner.orgId, "application.installed", async () => {
      await consentCode(app, owner, { overrides: { scope: "tasks.read" } });
    });
    const installation = await installationOf(owner);
    expect(installed.actor).toEqual(personActor(owner));
    expect(installed.target).toEqual({ type: "installation", id: installation.id, name: app.name });
    expect(installed.changes).toEqual({ scopes: { from: null, to: ["tasks.read"] } });
    expectFromThisRequest(installed);
    expect(installed.xmin).toBe(await writerOf("installations", installation.id));

    const widened = await expectOneEntry(owner.orgId, "application.scopes_widened", async () => {
      await consentCode(app, owner, { overrides: { scope: "tasks.read projects.read" } });
    });
    expect(widened.target).toEqual(installed.target);
    expect(widened.changes).toEqual({ scopes: { from: ["tasks.read"], to: ["projects.read", "tasks.read"] } });
    expect(widened.xmin).toBe(await writerOf("installations", installation.id));

    const before = await auditRows(owner.orgId);
    await consentCode(app, owner, { overrides: { scope: "tasks.read" } });
    const { params } = authorizationRequest(app);
    expect((await postConsent(owner, { ...params, orgId: owner.orgId, decision: "deny" })).status).toBe(200);
    expect((await postConsent(owner, { ...params, orgId: owner.orgId, decision: "allow" }, "https://evil.example.com")).status).toBe(403);
    expect(await auditRows(owner.orgId)).toEqual(before);
  });

  it("uninstalled: the person, the installation and the scopes it held; installed again afresh", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    await tokensFor(app, owner);
    const installation = await installationOf(owner);
    const uninstalled = await expectOneEntry(owner.orgId, "application.uninstalled", async () => {
      expectSuccess(await asPerson(owner.cookie, `/v1/settings/installations/${installation.id}`, { method: "DELETE" }));
    });
    expect(uninstalled.actor).toEqual(personActor(owner));
    expect(uninstalled.target).toEqual({ type: "installation", id: installation.id, name: app.name });
    expect(uninstalled.changes).toEqual({ scopes: { from: installation.scopes, to: null } });
    expectFromThisRequest(uninstalled);
    expect(uninstalled.xmin).toBe(await writerOf("installations", installation.id));
    const member = await memberOf(owner, "member");
    const before = await auditRows(owner.orgId);
    expectError(await asPerson(owner.cookie, `/v1/settings/installations/${installation.id}`, { method: "DELETE" }), 404, "not_found");
    expectError(
      await asPerson(member.cookie, `/v1/settings/installations/${installation.id}`, { method: "DELETE" }),
      403,
      "insufficient_role",
    );
    expect(await auditRows(owner.orgId)).toEqual(before);
    const again = await expectOneEntry(owner.orgId, "application.installed", () => consentCode(app, owner));
    expect(again.changes).toEqual({ scopes: { from: null, to: ["projects.read", "tasks.read", "tasks.manage"] } });
  });
});

describe("audit: a reused code or refresh token", () => {
  it("refresh reuse: the grant revoked and recorded in that statement, the app (for the person) as actor", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const first = await tokensFor(app, owner);
    const refresh = (token: string) => tokenRequest({ grant_type: "refresh_token", refresh_token: token, ...clientForm(app) });
    expect((await refresh(first.refresh_token)).status).toBe(200);
    const reused = await expectOneEntry(owner.orgId, "application.refresh_reused", async () => {
      expect((await refresh(first.refresh_token)).body.error).toBe("invalid_grant");
    });
    const installation = await installationOf(owner);
    expect(reused.actor).toEqual({ type: "app", id: app.id, name: app.name, onBehalfOf: personActor(owner) });
    expect(reused.target).toEqual({ type: "installation", id: installation.id, name: app.name });
    const grantId = (reused.changes as any).grantRevoked.to as string;
    expect(reused.changes).toEqual({ grantRevoked: { from: null, to: grantId } });
    expect(JSON.stringify(reused)).not.toContain(first.refresh_token);
    expectFromThisRequest(reused);
    expect(reused.xmin).toBe(await writerOf("oauth_grants", grantId));
    // Presented a third time: the grant was already revoked, nothing more is recorded.
    const before = await auditRows(owner.orgId);
    expect((await refresh(first.refresh_token)).body.error).toBe("invalid_grant");
    expect(await auditRows(owner.orgId)).toEqual(before);
  });

  it("code reuse: the same, as application.code_reused; a wrong verifier records nothing", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const { code, verifier, params } = await consentCode(app, owner);
    const exchange = (codeVerifier: string) =>
      tokenRequest({
        grant_type: "authorization_code",
        code,
        redirect_uri: params.redirect_uri,
        code_verifier: codeVerifier,
        ...clientForm(app),
      });
    const before = await auditRows(owner.orgId);
    expect((await exchange("x".repeat(43))).body.error).toBe("invalid_grant");
    expect(await auditRows(owner.orgId)).toEqual(before);
    expect((await exchange(verifier)).status).toBe(200);
    const reused = await expectOneEntry(owner.orgId, "application.code_reused", async () => {
      expect((await exchange(verifier)).body.error).toBe("invalid_grant");
    });
    expect(reused.actor).toMatchObject({ type: "app", id: app.id, onBehalfOf: personActor(owner) });
    expectFromThisRequest(reused);
  });
});

describe("audit: the organisation's settings", () => {
  it("organisation.updated from, to; the same value again, and an admin's attempt, record nothing", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const patch = (person: Person, allow: boolean) =>
      asPerson(person.cookie, "/v1/settings/organisation", { method: "PATCH", body: { allowDynamicClientRegistration: allow } });
    const entry = await expectOneEntry(owner.orgId, "organisation.updated", async () => {
      expectSuccess(await patch(owner, true));
    });
    expect(entry.actor).toEqual(personActor(owner));
    expect(entry.target).toMatchObject({ type: "organisation", id: owner.orgId });
    expect(entry.changes).toEqual({ allowDynamicClientRegistration: { from: false, to: true } });
    expectFromThisRequest(entry);
    expect(entry.xmin).toBe(await writerOf("organisations", owner.orgId));
    const before = await auditRows(owner.orgId);
    expectSuccess(await patch(owner, true));
    expectError(await patch(admin, false), 403, "insufficient_role");
    expect(await auditRows(owner.orgId)).toEqual(before);
    const back = await expectOneEntry(owner.orgId, "organisation.updated", async () => {
      expectSuccess(await patch(owner, false));
    });
    expect(back.changes).toEqual({ allowDynamicClientRegistration: { from: true, to: false } });
  });
});

describe("audit: the new actions read back", () => {
  it("filter by the applications' actions through GET /v1/audit-log; the chain verifies", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    await tokensFor(app, owner);
    const actions = "application.registered,application.installed";
    const listed = expectSuccess(await readAuditLog(`/v1/audit-log?action=${actions}`, { cookie: owner.cookie })).data as Array<{
      action: string;
    }>;
    expect(listed.map((e) => e.action)).toEqual(["application.installed", "application.registered"]);
    const run = await verify(owner.orgId);
    expect(run.code, run.stderr).toBe(0);
  }, 120_000);
});
