import { describe, expect, it } from "vitest";
import { expectSuccess } from "../helpers/api.ts";
import { expectFromThisRequest, expectOneEntry, writerOf } from "../helpers/audit.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { asPerson, memberOf, signUp } from "../helpers/people.ts";

// API keys created, replaced and revoked: one entry each, by whoever did it, from where, in the
// transaction of the change itself.

describe("audit: API keys", () => {
  it("created in the settings area: the person, the key (never the key itself), its scopes, from this request, one commit", async () => {
    const owner = await signUp();
    let created: any;
    const entry = await expectOneEntry(owner.orgId, "api_key.created", async () => {
      created = expectSuccess(
        await asPerson(owner.cookie, "/v1/settings/api-keys", { body: { name: "Sync", scopes: ["tasks.manage"] } }),
        201,
      ).data;
    });
    expect(entry.actor).toEqual({ type: "user", id: owner.userId, name: owner.name });
    expect(entry.target).toEqual({ type: "api_key", id: created.id, name: "Sync" });
    expect(entry.changes).toEqual({ scopes: { from: null, to: ["tasks.read", "tasks.manage"] }, rateLimit: { from: null, to: 600 } });
    expect(JSON.stringify(entry)).not.toContain(created.key);
    expectFromThisRequest(entry);
    expect(entry.xmin).toBe(await writerOf("api_keys", created.id));
  });

  it("replaced and revoked: by an admin, naming the old key and its replacement", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const key = expectSuccess(
      await asPerson(owner.cookie, "/v1/settings/api-keys", { body: { name: "Old", scopes: ["tasks.read"] } }),
      201,
    ).data;
    let replacement: any;
    const replaced = await expectOneEntry(owner.orgId, "api_key.replaced", async () => {
      replacement = expectSuccess(await asPerson(admin.cookie, `/v1/settings/api-keys/${key.id}/replace`, { method: "POST" }), 201).data;
    });
    expect(replaced.actor).toEqual({ type: "user", id: admin.userId, name: admin.name });
    expect(replaced.target).toEqual({ type: "api_key", id: key.id, name: "Old" });
    expect(replaced.changes).toEqual({ replacedBy: { from: null, to: replacement.id } });
    expect(replaced.xmin).toBe(await writerOf("api_keys", replacement.id));
    const revoked = await expectOneEntry(owner.orgId, "api_key.revoked", async () => {
      expectSuccess(await asPerson(admin.cookie, `/v1/settings/api-keys/${replacement.id}/revoke`, { method: "POST" }));
    });
    expect(revoked.target).toEqual({ type: "api_key", id: replacement.id, name: "Old" });
    expectFromThisRequest(revoked);
    expect(revoked.xmin).toBe(await writerOf("api_keys", replacement.id));
  });

  it("a refused revocation (a member; a key already revoked) records nothing", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const key = expectSuccess(
      await asPerson(owner.cookie, "/v1/settings/api-keys", { body: { name: "K", scopes: ["tasks.read"] } }),
      201,
    ).data;
    const { auditRows } = await import("../helpers/audit.ts");
    const before = await auditRows(owner.orgId);
    expect((await asPerson(member.cookie, `/v1/settings/api-keys/${key.id}/revoke`, { method: "POST" })).status).toBe(403);
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/api-keys/${key.id}/revoke`, { method: "POST" }));
    expect((await asPerson(owner.cookie, `/v1/settings/api-keys/${key.id}/revoke`, { method: "POST" })).status).toBe(404);
    const after = await auditRows(owner.orgId);
    expect(after.slice(before.length).map((row) => row.action)).toEqual(["api_key.revoked"]);
  });

  it("made and revoked by the CLI: opsroom itself, with no address", async () => {
    const tenant = await createTenant();
    const { auditRows } = await import("../helpers/audit.ts");
    const [entry] = await auditRows(tenant.org.id);
    expect(entry).toMatchObject({
      action: "api_key.created",
      actor: { type: "system", id: null, name: "opsroom" },
      target: { type: "api_key", id: tenant.keyId, name: tenant.application },
      client_address: null,
      request_id: null,
    });
  });
});
