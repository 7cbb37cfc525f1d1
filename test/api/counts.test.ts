import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { asPerson, signUp } from "../helpers/people.ts";
import { refusedCall } from "../helpers/resources.ts";

// GET /v1/<collection>/counts: how many records the list with the same filters selects, in all
// and by status (every status, 0 included), so the console can say what a view leaves out.

describe("GET /v1/tasks/counts", () => {
  it("counts what the list's filters select, by status; ?assigneeId=me for a linked member", async () => {
    const tenant = await createTenant({ scopes: ["tasks.read"] });
    const project = await tenant.insertProject();
    const [alice, bob] = [await tenant.insertPerson(), await tenant.insertPerson()];
    const rows = [
      [alice.id, "todo"],
      [alice.id, "todo"],
      [alice.id, "done"],
      [bob.id, "blocked"],
    ] as const;
    for (const [assigneeId, status] of rows) await tenant.insertTask({ projectId: project.id, assigneeId, status });
    await tenant.insertTask({ status: "todo" }); // another project
    const counts = async (query: string) => expectSuccess(await api(`/v1/tasks/counts${query}`, { key: tenant.key })).data;
    expect(await counts(`?projectId=${project.id}`)).toEqual({
      total: 4,
      byStatus: { todo: 2, in_progress: 0, blocked: 1, done: 1, cancelled: 0 },
    });
    expect((await counts(`?projectId=${project.id}&assigneeId=${alice.id}&status=todo,done`)).total).toBe(3);
    expect((await counts("")).total).toBe(5);
    const listed = expectSuccess(await api(`/v1/tasks?projectId=${project.id}&status=todo`, { key: tenant.key }));
    expect((await counts(`?projectId=${project.id}&status=todo`)).total).toBe(listed.count);
  });

  it("a signed-in member counts their own tasks with assigneeId=me", async () => {
    const owner = await signUp();
    const created = expectSuccess(await asPerson(owner.cookie, "/v1/personnel", { body: { name: "Owner", email: owner.email } }), 201).data;
    expectSuccess(
      await asPerson(owner.cookie, `/v1/settings/members/${owner.userId}/personnel`, { method: "PUT", body: { personnelId: created.id } }),
    );
    expect(expectSuccess(await asPerson(owner.cookie, "/v1/tasks/counts?assigneeId=me")).data).toMatchObject({ total: 0 });
  });

  it("refuses a key without the read scope, a bad filter, and counts nothing of another organisation", async () => {
    const tenant = await createTenant({ scopes: ["projects.read"] });
    await refusedCall(tenant, "/v1/tasks/counts", {}, 403, "insufficient_scope", { scope: "tasks.read" });
    const reader = await createTenant({ scopes: ["tasks.read"] });
    await refusedCall(reader, "/v1/tasks/counts?status=nope", {}, 400, "invalid_field", { field: "status" });
    await refusedCall(reader, "/v1/tasks/counts?limit=5", {}, 400, "unknown_field");
    await refusedCall(reader, "/v1/tasks/counts?assigneeId=me", {}, 400, "invalid_field", { field: "assigneeId" });
    const other = await createTenant();
    await other.insertTask();
    expect(expectSuccess(await api("/v1/tasks/counts", { key: reader.key })).data.total).toBe(0);
  });
});

describe("counts of other collections", () => {
  it("a project's milestones under the project (404 for another organisation's), financial entries without status", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    await tenant.insertMilestone(project.id);
    const data = expectSuccess(await api(`/v1/projects/${project.id}/milestones/counts`, { key: tenant.key })).data;
    expect(data).toEqual({ total: 1, byStatus: { open: 1, done: 0, cancelled: 0 } });
    const other = await createTenant();
    await refusedCall(other, `/v1/projects/${project.id}/milestones/counts`, {}, 404, "not_found");
    expect(expectSuccess(await api("/v1/financial-entries/counts", { key: tenant.key })).data).toEqual({ total: 0, byStatus: null });
  });
});
