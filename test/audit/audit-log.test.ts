import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, testClientAddress, workerUrl } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { asPerson, memberOf, signUp } from "../helpers/people.ts";
import { describeRefusals } from "../helpers/refusals.ts";

// GET /v1/audit-log and its NDJSON export: owners and admins (their role holds audit.read), keys
// given audit.read; members and other keys 403. Newest first, filtered, paged; nothing edits it.

describeRefusals({ method: "GET", path: () => "/v1/audit-log", scope: "audit.read" });
describeRefusals({ method: "GET", path: () => "/v1/audit-log/export", scope: "audit.read" });

const createKey = async (cookie: string, name: string, scopes: string[]) =>
  expectSuccess(await asPerson(cookie, "/v1/settings/api-keys", { body: { name, scopes } }), 201).data;

describe("GET /v1/audit-log", () => {
  it("owners and admins read it; a member, and a key without audit.read, get 403; a key with it reads", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const member = await memberOf(owner, "member");
    const auditor = await createKey(owner.cookie, "SIEM", ["audit.read"]);
    const other = await createKey(owner.cookie, "Everything else", ["organisation.manage", "webhooks.manage", "tasks.manage"]);
    for (const person of [owner, admin]) expect(expectSuccess(await asPerson(person.cookie, "/v1/audit-log")).count).toBeGreaterThan(0);
    expectError(await asPerson(member.cookie, "/v1/audit-log"), 403, "insufficient_scope");
    expectError(await api("/v1/audit-log", { key: other.key }), 403, "insufficient_scope");
    const read = expectSuccess(await api("/v1/audit-log", { key: auditor.key })).data;
    // Newest first: the last key made comes first.
    expect(read[0]).toMatchObject({
      action: "api_key.created",
      target: { type: "api_key", id: other.id },
      clientAddress: testClientAddress(),
    });
    expect(read.map((e: { sequence: number }) => e.sequence)).toEqual(
      [...read.map((e: { sequence: number }) => e.sequence)].sort((a, b) => b - a),
    );
    // audit.read is implied by no other scope: the key's scopes are exactly what it was given.
    expect(other.scopes).not.toContain("audit.read");
  });

  it("filters by action, actor, target and time; pages newest first with a cursor", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await createKey(admin.cookie, `Key ${i}`, ["tasks.read"]));
    const all = expectSuccess(await asPerson(owner.cookie, "/v1/audit-log?limit=200")).data;
    const created = expectSuccess(await asPerson(owner.cookie, "/v1/audit-log?action=api_key.created")).data;
    expect(created.map((e: any) => e.target.id)).toEqual(keys.map((k) => k.id).reverse());
    const byAdmin = expectSuccess(await asPerson(owner.cookie, `/v1/audit-log?actor=${admin.userId}`)).data;
    expect(byAdmin.every((e: any) => e.actor.id === admin.userId)).toBe(true);
    expect(byAdmin.length).toBe(5 + 1); // the five keys and joining
    const onKey = expectSuccess(await asPerson(owner.cookie, `/v1/audit-log?target=${keys[2].id}`)).data;
    expect(onKey.map((e: any) => e.action)).toEqual(["api_key.created"]);
    const since = created[2].occurredAt;
    const recent = expectSuccess(await asPerson(owner.cookie, `/v1/audit-log?action=api_key.created&since=${since}`)).data;
    expect(recent.map((e: any) => e.id)).toEqual(created.slice(0, 3).map((e: any) => e.id));
    const older = expectSuccess(await asPerson(owner.cookie, `/v1/audit-log?action=api_key.created&until=${since}`)).data;
    expect(older.map((e: any) => e.id)).toEqual(created.slice(3).map((e: any) => e.id));
    const paged: string[] = [];
    for (let path = "/v1/audit-log?limit=2"; ;) {
      const page = expectSuccess(await asPerson(owner.cookie, path));
      paged.push(...page.data.map((e: any) => e.id));
      if (!page.nextCursor) break;
      path = `/v1/audit-log?limit=2&cursor=${page.nextCursor}`;
    }
    expect(paged).toEqual(all.map((e: any) => e.id));
    expectError(await asPerson(owner.cookie, "/v1/audit-log?cursor=abc"), 400, "invalid_field", { field: "cursor" });
    expectError(await asPerson(owner.cookie, "/v1/audit-log?action=task.created"), 400, "invalid_field", { field: "action" });
  });

  it("the export: every selected entry as NDJSON, the same as the list; a refusal is a JSON error", async () => {
    const owner = await signUp();
    for (let i = 0; i < 3; i++) await createKey(owner.cookie, `Key ${i}`, ["tasks.read"]);
    const listed = expectSuccess(await asPerson(owner.cookie, "/v1/audit-log?limit=200")).data;
    const response = await fetch(new URL("/v1/audit-log/export", workerUrl()), { headers: { cookie: owner.cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = (await response.text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toEqual(listed);
    const filtered = await fetch(new URL("/v1/audit-log/export?action=user.signed_up", workerUrl()), { headers: { cookie: owner.cookie } });
    expect(
      (await filtered.text())
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).action),
    ).toEqual(["user.signed_up"]);
    const member = await memberOf(owner, "member");
    expectError(await asPerson(member.cookie, "/v1/audit-log/export"), 403, "insufficient_scope");
  });

  it("no route changes or deletes an entry", async () => {
    const tenant = await createTenant();
    for (const method of ["PATCH", "PUT", "DELETE", "POST"] as const) {
      const response = await api("/v1/audit-log", { key: tenant.key, method, ...(method === "DELETE" ? {} : { body: {} }) });
      expect([404, 405]).toContain(response.status);
    }
  });
});
