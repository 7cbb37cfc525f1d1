import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { expectOneWrite, refusedCall, storedEvents, taskBody } from "../helpers/resources.ts";
import { insertLabel, insertTaskIn, labelBody } from "../helpers/work.ts";

// Labels (docs/api.md "Labels"): name unique per organisation whatever the case, colour #rrggbb;
// task scopes; tasks carry labelIds (set on create and change, every id one of the
// organisation's labels, each once); ?labelId= filters tasks; deleting a label takes it off every
// task in the same statement, a task.updated event each before label.deleted.

describeRefusals({ method: "GET", path: () => "/v1/labels", scope: "tasks.read" });
describeRefusals({ method: "POST", path: () => "/v1/labels", scope: "tasks.manage", body: () => labelBody() });
describeRefusals({ method: "GET", path: (id) => `/v1/labels/${id}`, scope: "tasks.read", record: (tenant) => insertLabel(tenant) });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/labels/${id}`,
  scope: "tasks.manage",
  record: (tenant) => insertLabel(tenant),
  body: () => ({ colour: "#000000" }),
});
describeRefusals({ method: "DELETE", path: (id) => `/v1/labels/${id}`, scope: "tasks.manage", record: (tenant) => insertLabel(tenant) });

const labelsOf = async (task: string) =>
  (await query<{ label_ids: string[] }>("select label_ids from tasks where id = $1", [task]))[0]!.label_ids;

describe("/v1/labels", () => {
  it("creates, reads, lists, changes and deletes a label, an event each", async () => {
    const tenant = await createTenant();
    let before = await snapshot(tenant.org.id);
    const label = expectSuccess(await api("/v1/labels", { key: tenant.key, body: { name: "Fragile", colour: "#D73A4A" } }), 201).data;
    expect(label).toMatchObject({ name: "Fragile", colour: "#D73A4A", description: null, externalId: null, version: 1 });
    expect((await expectOneWrite(tenant.org.id, before, "label.created")).scope).toBe("tasks.read");
    expect(expectSuccess(await api(`/v1/labels/${label.id}`, { key: tenant.key })).data).toEqual(label);
    expect(expectSuccess(await api("/v1/labels?sort=name", { key: tenant.key })).data).toEqual([label]);
    before = await snapshot(tenant.org.id);
    const changed = expectSuccess(
      await api(`/v1/labels/${label.id}`, { key: tenant.key, method: "PATCH", body: { name: "Handle with care", description: "Glass" } }),
    ).data;
    expect(changed).toMatchObject({ name: "Handle with care", description: "Glass", version: 2 });
    expect((await expectOneWrite(tenant.org.id, before, "label.updated")).changes).toEqual({
      name: { from: "Fragile", to: "Handle with care" },
      description: { from: null, to: "Glass" },
    });
    before = await snapshot(tenant.org.id);
    expectSuccess(await api(`/v1/labels/${label.id}`, { key: tenant.key, method: "DELETE" }));
    await expectOneWrite(tenant.org.id, before, "label.deleted");
  });

  it("a name taken in any letter case is 409 conflict on name; renaming to its own name is fine", async () => {
    const tenant = await createTenant();
    const label = await insertLabel(tenant, { name: "Safety" });
    await refusedCall(tenant, "/v1/labels", { method: "POST", body: labelBody({ name: "SAFETY" }) }, 409, "conflict", { field: "name" });
    const other = await insertLabel(tenant, { name: "Other" });
    await refusedCall(tenant, `/v1/labels/${other}`, { method: "PATCH", body: { name: "safety" } }, 409, "conflict", { field: "name" });
    expectSuccess(await api(`/v1/labels/${label}`, { key: tenant.key, method: "PATCH", body: { name: "SAFETY" } }));
    // Another organisation may have the name.
    const elsewhere = await createTenant();
    expectSuccess(await api("/v1/labels", { key: elsewhere.key, body: labelBody({ name: "Safety" }) }), 201);
  });

  it("concurrent creates of one name: exactly one label", async () => {
    const tenant = await createTenant();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => api("/v1/labels", { key: tenant.key, body: labelBody({ name: "Race" }) })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 201))
      expect([answer.status, answer.body.error.code, answer.body.error.field]).toEqual([409, "conflict", "name"]);
    expect(await query("select id from labels where org_id = $1", [tenant.org.id])).toHaveLength(1);
  });

  it("refuses a bad colour, an empty or long name, and unknown fields: 400 naming the field", async () => {
    const tenant = await createTenant();
    for (const colour of ["red", "#12345", "#1234567", "#gggggg", "", 12]) {
      await refusedCall(tenant, "/v1/labels", { method: "POST", body: labelBody({ colour }) }, 400, "invalid_field", { field: "colour" });
    }
    for (const name of ["", "   ", "x".repeat(101), "a\u0000b"]) {
      await refusedCall(tenant, "/v1/labels", { method: "POST", body: labelBody({ name }) }, 400, "invalid_field", { field: "name" });
    }
    await refusedCall(tenant, "/v1/labels", { method: "POST", body: { colour: "#000000" } }, 400, "missing_field", { field: "name" });
    await refusedCall(tenant, "/v1/labels", { method: "POST", body: labelBody({ color: "#000000" }) }, 400, "unknown_field", {
      field: "color",
    });
  });
});

describe("labelIds on tasks", () => {
  async function labelled(tenant: Tenant): Promise<[string, string]> {
    return [await insertLabel(tenant), await insertLabel(tenant)];
  }

  it("set on create and replaced on change (with changes.labelIds); ?labelId= finds the tasks that have it", async () => {
    const tenant = await createTenant();
    const [a, b] = await labelled(tenant);
    const task = expectSuccess(await api("/v1/tasks", { key: tenant.key, body: await taskBody(tenant, { labelIds: [a, b] }) }), 201).data;
    expect(task.labelIds).toEqual([a, b]);
    const before = await snapshot(tenant.org.id);
    expect(
      expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { labelIds: [b] } })).data.labelIds,
    ).toEqual([b]);
    expect((await expectOneWrite(tenant.org.id, before, "task.updated")).changes).toEqual({ labelIds: { from: [a, b], to: [b] } });
    await insertTaskIn(tenant);
    expect(expectSuccess(await api(`/v1/tasks?labelId=${b}`, { key: tenant.key })).data.map((t: { id: string }) => t.id)).toEqual([
      task.id,
    ]);
    expect(expectSuccess(await api(`/v1/tasks?labelId=${a}`, { key: tenant.key })).data).toEqual([]);
    expect(
      expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { labelIds: [] } })).data.labelIds,
    ).toEqual([]);
  });

  it("a label of another organisation or none is 400 invalid_reference labelIds; a label twice is 400 invalid_field", async () => {
    const [tenant, other] = [await createTenant(), await createTenant()];
    const [mine] = await labelled(tenant);
    const theirs = await insertLabel(other);
    await refusedCall(
      tenant,
      "/v1/tasks",
      { method: "POST", body: await taskBody(tenant, { labelIds: [mine, theirs] }) },
      400,
      "invalid_reference",
      { field: "labelIds" },
    );
    const task = await insertTaskIn(tenant);
    await refusedCall(
      tenant,
      `/v1/tasks/${task}`,
      { method: "PATCH", body: { labelIds: ["019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10"] } },
      400,
      "invalid_reference",
      { field: "labelIds" },
    );
    await refusedCall(tenant, `/v1/tasks/${task}`, { method: "PATCH", body: { labelIds: [mine, mine] } }, 400, "invalid_field", {
      field: "labelIds",
    });
    await refusedCall(
      tenant,
      `/v1/tasks/${task}`,
      { method: "PATCH", body: { labelIds: Array.from({ length: 51 }, () => mine) } },
      400,
      "invalid_field",
      { field: "labelIds" },
    );
  });

  it("deleting a label takes it off every task in the same statement: task.updated each, then label.deleted", async () => {
    const tenant = await createTenant();
    const [gone, kept] = await labelled(tenant);
    const [first, second] = [await insertTaskIn(tenant, { labelIds: [kept, gone] }), await insertTaskIn(tenant, { labelIds: [gone] })];
    const untouched = await insertTaskIn(tenant, { labelIds: [kept] });
    const before = await snapshot(tenant.org.id);
    expectSuccess(await api(`/v1/labels/${gone}`, { key: tenant.key, method: "DELETE" }));
    const events = await storedEvents(tenant.org.id, before.changeVersion);
    expect(events.map((e) => [e.type, e.data.id, e.changeVersion])).toEqual([
      ...[first, second].sort().map((id, i) => ["task.updated", id, before.changeVersion + 1 + i]),
      ["label.deleted", gone, before.changeVersion + 3],
    ]);
    const changes = Object.fromEntries(events.slice(0, 2).map((e) => [e.data.id, e.changes]));
    expect(changes[first]).toEqual({ labelIds: { from: [kept, gone], to: [kept] } });
    expect(changes[second]).toEqual({ labelIds: { from: [gone], to: [] } });
    expect([await labelsOf(first), await labelsOf(second), await labelsOf(untouched)]).toEqual([[kept], [], [kept]]);
  });

  it("a label deleted while a task is given it: the task never keeps a label that is gone", async () => {
    const tenant = await createTenant();
    for (let round = 0; round < 5; round++) {
      const label = await insertLabel(tenant);
      const task = await insertTaskIn(tenant);
      const [given, deleted] = await Promise.all([
        api(`/v1/tasks/${task}`, { key: tenant.key, method: "PATCH", body: { labelIds: [label] } }),
        api(`/v1/labels/${label}`, { key: tenant.key, method: "DELETE" }),
      ]);
      expect(deleted.status).toBe(200);
      // Either the task got it first (and the delete took it off), or the delete went first (and the change was refused).
      expect([200, 400]).toContain(given.status);
      expect(await labelsOf(task)).toEqual([]);
    }
  });
});
