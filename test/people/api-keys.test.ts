import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { asPerson, memberOf, peopleTrace, signUp, type Person } from "../helpers/people.ts";

// The keys people make in the settings area: shown once, listed without the key, revoked (401 at
// once), and replaced: a new key with the old one's name, scopes and rate limit, created by
// whoever replaced it, and the old one revoked in the same statement.

const createKey = async (person: Person, body: Record<string, unknown>) =>
  expectSuccess(await asPerson(person.cookie, "/v1/settings/api-keys", { body }), 201).data;
const listKeys = async (person: Person) => expectSuccess(await asPerson(person.cookie, "/v1/settings/api-keys")).data as any[];
const keyAction = (person: Person, id: string, verb: "revoke" | "replace") =>
  asPerson(person.cookie, `/v1/settings/api-keys/${id}/${verb}`, { method: "POST" });

describe("API keys", () => {
  it("created with a name, scopes (a .manage brings its .read) and a rate limit; the key is shown once and works", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const created = await createKey(admin, { name: "Site tablets", scopes: ["tasks.manage", "risks.read"], rateLimit: 42 });
    expect(created).toMatchObject({
      name: "Site tablets",
      scopes: ["tasks.read", "tasks.manage", "risks.read"],
      rateLimit: 42,
      createdBy: { id: admin.userId, name: admin.name },
      lastUsedAt: null,
    });
    expect(created.key.startsWith(created.prefix)).toBe(true);
    const used = await api("/v1", { key: created.key });
    expect(used.body.application).toBe("Site tablets");
    expect(used.headers.get("ratelimit-limit")).toBe("42");
    const listed = await listKeys(owner);
    expect(listed.map((k) => k.id)).toEqual([created.id]);
    expect(listed[0]).not.toHaveProperty("key");
    expect(JSON.stringify(listed)).not.toContain(created.key);
    // Only the hash is stored.
    expect(JSON.stringify(await query("select * from api_keys where id = $1", [created.id]))).not.toContain(created.key);
  });

  it("replace keeps name, scopes and rate limit; createdBy is the replacer; the old key is refused at once", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const old = await createKey(owner, { name: "Warehouse sync", scopes: ["financials.manage", "projects.read"], rateLimit: 7 });
    expectSuccess(await api("/v1", { key: old.key }));
    const replaced = expectSuccess(await keyAction(admin, old.id, "replace"), 201).data;
    expect(replaced).toMatchObject({
      name: "Warehouse sync",
      scopes: old.scopes,
      rateLimit: 7,
      createdBy: { id: admin.userId, name: admin.name },
      replaces: old.id,
    });
    expect(replaced.id).not.toBe(old.id);
    expect(replaced.key).not.toBe(old.key);
    expectError(await api("/v1", { key: old.key }), 401, "invalid_key");
    const fresh = await api("/v1", { key: replaced.key });
    expect(fresh.headers.get("ratelimit-limit")).toBe("7");
    expect(fresh.body.scopes.map((s: { scope: string }) => s.scope)).toEqual(["projects.read", "financials.read", "financials.manage"]);
    expect((await listKeys(owner)).map((k) => k.id)).toEqual([replaced.id]);
  });

  it("a revoked key is refused at once; revoking or replacing it again: 404 not_found, nothing written", async () => {
    const owner = await signUp();
    const key = await createKey(owner, { name: "Old app", scopes: ["tasks.read"] });
    expectSuccess(await keyAction(owner, key.id, "revoke"));
    expectError(await api("/v1/tasks", { key: key.key }), 401, "invalid_key");
    const before = await peopleTrace(owner.orgId);
    expectError(await keyAction(owner, key.id, "replace"), 404, "not_found");
    expectError(await keyAction(owner, key.id, "revoke"), 404, "not_found");
    for (const verb of ["revoke", "replace"] as const) expectError(await keyAction(owner, randomUUID(), verb), 404, "not_found");
    expect(await peopleTrace(owner.orgId)).toEqual(before);
    expect(await listKeys(owner)).toEqual([]);
  });

  it("a replaced key cannot be replaced again (404); the new one can", async () => {
    const owner = await signUp();
    const first = await createKey(owner, { name: "Chain", scopes: ["issues.manage"] });
    const second = expectSuccess(await keyAction(owner, first.id, "replace"), 201).data;
    const before = await peopleTrace(owner.orgId);
    expectError(await keyAction(owner, first.id, "replace"), 404, "not_found");
    expect(await peopleTrace(owner.orgId)).toEqual(before);
    const third = expectSuccess(await keyAction(owner, second.id, "replace"), 201).data;
    expect(third).toMatchObject({ name: "Chain", replaces: second.id, scopes: second.scopes });
    expectError(await api("/v1", { key: second.key }), 401, "invalid_key");
  });

  it("replacing one key at the same moment twice: one new key, the other call 404", async () => {
    const owner = await signUp();
    const key = await createKey(owner, { name: "Twice", scopes: ["tasks.read"] });
    const answers = await Promise.all([keyAction(owner, key.id, "replace"), keyAction(owner, key.id, "replace")]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 404]);
    expect(await listKeys(owner)).toHaveLength(1);
  });

  it("a key made by someone who then left keeps working and still names its maker", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const key = await createKey(admin, { name: "Left behind", scopes: ["tasks.read"] });
    expectSuccess(await asPerson(admin.cookie, `/v1/settings/members/${admin.userId}`, { method: "DELETE" }));
    expectSuccess(await api("/v1/tasks", { key: key.key }));
    expect((await listKeys(owner))[0].createdBy).toEqual({ id: admin.userId, name: admin.name });
  });
});
