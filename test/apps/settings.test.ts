import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { asPerson, memberOf, peopleTrace, signUp } from "../helpers/people.ts";
import { registerApp, tokensFor } from "./helpers.ts";

// Applications in the settings area (docs/apps.md): owners and admins register, list, change,
// rotate and delete their organisation's applications and see and uninstall installed ones; every
// refusal (a key 401, a member 403, another organisation's id 404, a bad redirect URI 400) writes nothing.

const APPS = "/v1/settings/applications";

describe("applications in the settings area", () => {
  it("registered with a secret shown once (only its hash stored), listed, read, changed and deleted", async () => {
    const owner = await signUp({ name: "Ada" });
    const admin = await memberOf(owner, "admin");
    const created = expectSuccess(
      await asPerson(admin.cookie, APPS, {
        body: { name: "Planner", redirectUris: ["https://p.example/cb", "http://[::1]/cb"], scopes: ["tasks.manage"] },
      }),
      201,
    ).data as any;
    expect(created.application).toMatchObject({
      name: "Planner",
      redirectUris: ["https://p.example/cb", "http://[::1]/cb"],
      scopes: ["tasks.read", "tasks.manage"],
      public: false,
      createdBy: { id: admin.userId, name: admin.name },
    });
    expect(created.application.clientId).toMatch(/^app_[0-9A-Za-z]{22}$/);
    expect(created.clientSecret).toMatch(/^opsroom_cs_/);
    expect(JSON.stringify(await query(`select * from applications where id = $1`, [created.application.id]))).not.toContain(
      created.clientSecret,
    );
    const listed = expectSuccess(await asPerson(owner.cookie, APPS)).data as any[];
    expect(listed).toEqual([created.application]);
    expect(expectSuccess(await asPerson(owner.cookie, `${APPS}/${created.application.id}`)).data).toEqual(created.application);
    const changed = expectSuccess(
      await asPerson(owner.cookie, `${APPS}/${created.application.id}`, { method: "PATCH", body: { name: "Planner 2" } }),
    ).data as any;
    expect(changed).toEqual({ ...created.application, name: "Planner 2" });
    expectSuccess(await asPerson(owner.cookie, `${APPS}/${created.application.id}`, { method: "DELETE" }));
    expect(expectSuccess(await asPerson(owner.cookie, APPS)).data).toEqual([]);
    expectError(await asPerson(owner.cookie, `${APPS}/${created.application.id}`), 404, "not_found");
  });

  it("a public application has no secret, and none to rotate (409)", async () => {
    const owner = await signUp();
    const created = expectSuccess(
      await asPerson(owner.cookie, APPS, {
        body: { name: "CLI", redirectUris: ["http://127.0.0.1/cb"], scopes: ["tasks.read"], public: true },
      }),
      201,
    ).data as any;
    expect(created.clientSecret).toBeNull();
    expect(created.application.public).toBe(true);
    const before = await peopleTrace(owner.orgId);
    expectError(await asPerson(owner.cookie, `${APPS}/${created.application.id}/secret`, { body: {} }), 409, "conflict");
    expect(await peopleTrace(owner.orgId)).toEqual(before);
  });

  it("redirect URIs: https, or http to loopback; no fragment, no credentials, nothing else (400 redirectUris), nothing written", async () => {
    const owner = await signUp();
    const before = await peopleTrace(owner.orgId);
    for (const uri of [
      "http://client.example.com/cb",
      "https://client.example.com/cb#frag",
      "https://user:pw@client.example.com/cb",
      "javascript:alert(1)",
      "custom.scheme:/cb",
      "/relative/cb",
      "http://127.0.0.2.example.com/cb",
    ]) {
      const response = await asPerson(owner.cookie, APPS, { body: { name: "Bad", redirectUris: [uri], scopes: ["tasks.read"] } });
      expectError(response, 400, "invalid_field", { field: "redirectUris" });
    }
    expect(await peopleTrace(owner.orgId)).toEqual(before);
  });

  it("a member is 403, a key 401, another organisation's application or installation 404; nothing written", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const app = await registerApp(owner);
    await tokensFor(app, owner);
    const [installation] = expectSuccess(await asPerson(owner.cookie, "/v1/settings/installations")).data as any[];
    const other = await signUp();
    const tenant = await createTenant();
    const before = await peopleTrace(owner.orgId, other.orgId);
    const calls: [string, { method?: "GET" | "POST" | "PATCH" | "DELETE"; body?: unknown }][] = [
      [APPS, {}],
      [APPS, { body: { name: "X", redirectUris: ["https://x.example/cb"], scopes: ["tasks.read"] } }],
      [`${APPS}/${app.id}`, {}],
      [`${APPS}/${app.id}`, { method: "PATCH", body: { name: "Y" } }],
      [`${APPS}/${app.id}`, { method: "DELETE" }],
      [`${APPS}/${app.id}/secret`, { body: {} }],
      ["/v1/settings/installations", {}],
      [`/v1/settings/installations/${installation.id}`, { method: "DELETE" }],
      ["/v1/settings/organisation", { method: "PATCH", body: { allowDynamicClientRegistration: true } }],
    ];
    for (const [path, options] of calls) {
      expectError(await asPerson(member.cookie, path, options), 403, "insufficient_role");
      expectError(await api(path, { ...options, key: tenant.key }), 401, "unauthorized");
    }
    for (const [path, options] of calls.filter(([path]) => path.includes(app.id) || path.includes(installation.id)))
      expectError(await asPerson(other.cookie, path, options), 404, "not_found");
    for (const path of [`${APPS}/${randomUUID()}`, `/v1/settings/installations/${randomUUID()}`])
      expectError(await asPerson(owner.cookie, path, { method: "DELETE" }), 404, "not_found");
    expect(await peopleTrace(owner.orgId, other.orgId)).toEqual(before);
  });

  it("dynamic registration is off until an owner turns it on; an admin may read it, not change it", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    expect(expectSuccess(await asPerson(admin.cookie, "/v1/settings/organisation")).data).toEqual({
      allowDynamicClientRegistration: false,
      requireVerifiedEmail: false,
    });
    expectError(
      await asPerson(admin.cookie, "/v1/settings/organisation", { method: "PATCH", body: { allowDynamicClientRegistration: true } }),
      403,
      "insufficient_role",
    );
    const changed = await asPerson(owner.cookie, "/v1/settings/organisation", {
      method: "PATCH",
      body: { allowDynamicClientRegistration: true },
    });
    expect(expectSuccess(changed).data).toEqual({ allowDynamicClientRegistration: true, requireVerifiedEmail: false });
  });
});
