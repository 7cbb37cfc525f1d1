import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { asPerson, memberOf, newEmail, signIn, signUp } from "../helpers/people.ts";

describe("sign-up and the session", () => {
  it("sign-up makes an organisation owned by the new person; the session reads and writes /v1", async () => {
    const owner = await signUp({ organisationName: "Harbour Works" });
    const me = expectSuccess(await asPerson(owner.cookie, "/v1/settings/session")).data as any;
    expect(me).toMatchObject({ user: { email: owner.email }, organisation: { name: "Harbour Works" }, role: "owner" });
    const created = await asPerson(owner.cookie, "/v1/projects", {
      body: { name: "Quay wall", budget: 1000, startDate: "2026-01-01", endDate: "2026-12-31" },
    });
    expect(created.status, created.text).toBe(201);
    const events = expectSuccess(await asPerson(owner.cookie, "/v1/events")).data as any[];
    expect(events.at(-1).actor).toEqual({ type: "user", id: owner.userId, name: owner.name });
  });

  it("creates a key with two scopes, shown once; GET /v1 with it lists exactly those", async () => {
    const owner = await signUp();
    const created = await asPerson(owner.cookie, "/v1/settings/api-keys", {
      body: { name: "Warehouse sync", scopes: ["tasks.read", "projects.read"] },
    });
    const key = expectSuccess(created, 201).data as any;
    const self = (await api("/v1", { key: key.key })).body;
    expect(self.application).toBe("Warehouse sync");
    expect(self.scopes.map((s: any) => s.scope)).toEqual(["projects.read", "tasks.read"]);
    const list = expectSuccess(await asPerson(owner.cookie, "/v1/settings/api-keys")).data as any[];
    expect(JSON.stringify(list)).not.toContain(key.key);
    expect(list.find((k) => k.id === key.id).createdBy).toEqual({ id: owner.userId, name: owner.name });
    const replaced = expectSuccess(await asPerson(owner.cookie, `/v1/settings/api-keys/${key.id}/replace`, { method: "POST" }), 201)
      .data as any;
    expectError(await api("/v1", { key: key.key }), 401, "invalid_key");
    expectSuccess(await api("/v1", { key: replaced.key }));
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/api-keys/${replaced.id}/revoke`, { method: "POST" }));
    expectError(await api("/v1", { key: replaced.key }), 401, "invalid_key");
  });

  it("a member sees no keys: 403 insufficient_role", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    expectError(await asPerson(member.cookie, "/v1/settings/api-keys"), 403, "insufficient_role");
    const members = expectSuccess(await asPerson(member.cookie, "/v1/settings/members")).data as any[];
    expect(members.map((m) => m.role).sort()).toEqual(["member", "owner"]);
  });

  it("sign-in with a wrong password: 401; with the right one, a session", async () => {
    const owner = await signUp({ email: newEmail() });
    expect((await signIn(owner.email, "wrong-password")).status).toBe(401);
    expect((await signIn(owner.email, owner.password)).status).toBe(200);
  });
});
