import { describe, expect, it } from "vitest";
import { sendBatch } from "../batch/helpers.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { created, expectOneWrite, expectShape, refusedCall, taskBody } from "../helpers/resources.ts";

// A task's optional startDate (issue 46, the timeline): never after its dueDate, checked on a
// create, a change of either date (the other from the record), a PUT by external id and a batch;
// startDate null clears it; lists filter by it (startBefore, startAfter). It is no sort key: it
// may be null, and keyset pages do not step past nulls.

describe("a task's startDate", () => {
  it("is set on a create, changed, cleared, and each change is the task's event", async () => {
    const tenant = await createTenant();
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { startDate: "2026-06-01", dueDate: "2026-06-30" }));
    expectShape(task, "task");
    expect(task).toMatchObject({ startDate: "2026-06-01", dueDate: "2026-06-30" });
    const plain = await created(tenant.key, "/v1/tasks", await taskBody(tenant));
    expect(plain.startDate).toBeNull();

    let before = await snapshot(tenant.org.id);
    const moved = expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { startDate: "2026-06-30" } }));
    expect(moved.data.startDate).toBe("2026-06-30");
    expect((await expectOneWrite(tenant.org.id, before, "task.updated")).changes).toEqual({
      startDate: { from: "2026-06-01", to: "2026-06-30" },
    });
    before = await snapshot(tenant.org.id);
    expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { startDate: null } }));
    expect((await expectOneWrite(tenant.org.id, before, "task.updated")).changes).toEqual({
      startDate: { from: "2026-06-30", to: null },
    });
    // Both dates moved together, in either order of their values' checks.
    const both = { startDate: "2026-08-01", dueDate: "2026-08-15" };
    expect(expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: both })).data).toMatchObject(both);
  });

  it("after the dueDate is refused at the field, leaving no trace: create, change, PUT by external id, batch", async () => {
    const tenant = await createTenant();
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { startDate: "2026-06-10", dueDate: "2026-06-30" }));
    const path = `/v1/tasks/${task.id}`;
    const late = await taskBody(tenant, { startDate: "2026-07-01", dueDate: "2026-06-30" });
    await refusedCall(tenant, "/v1/tasks", { body: late }, 400, "invalid_field", { field: "startDate" });
    // One date alone: checked against the other as the task has it.
    await refusedCall(tenant, path, { method: "PATCH", body: { startDate: "2026-07-01" } }, 400, "invalid_field", { field: "startDate" });
    await refusedCall(tenant, path, { method: "PATCH", body: { dueDate: "2026-06-09" } }, 400, "invalid_field", { field: "dueDate" });
    await refusedCall(tenant, path, { method: "PATCH", body: { startDate: "2026-07-02", dueDate: "2026-07-01" } }, 400, "invalid_field", {
      field: "startDate",
    });
    await refusedCall(tenant, path, { method: "PATCH", body: { startDate: "2026-02-30" } }, 400, "invalid_field", { field: "startDate" });
    await refusedCall(tenant, "/v1/tasks/by-external-id/ext-late", { method: "PUT", body: late }, 400, "invalid_field", {
      field: "startDate",
    });
    const before = await snapshot(tenant.org.id);
    const batch = await sendBatch(tenant.key, [{ method: "PATCH", path, body: { startDate: "2026-07-01" } }]);
    expect(batch.status).toBe(400);
    expect(batch.body.error).toMatchObject({ code: "invalid_field", field: "startDate" });
    expect(await snapshot(tenant.org.id)).toEqual(before);
    // A tasks.read key may not change it; another organisation's task is not found.
    const reader = await tenant.keyWith(["tasks.read"]);
    const refusedReader = await api(path, { key: reader.key, method: "PATCH", body: { startDate: "2026-06-11" } });
    expect(refusedReader.body.error).toMatchObject({ code: "insufficient_scope", scope: "tasks.manage" });
    const other = await createTenant();
    await refusedCall(other, path, { method: "PATCH", body: { startDate: "2026-06-11" } }, 404, "not_found");
  });

  it("lists filter by it (strictly; tasks without one left out)", async () => {
    const tenant = await createTenant();
    const projectId = (await tenant.insertProject()).id;
    const t = async (startDate: string | null) => (await tenant.insertTask({ projectId, startDate, dueDate: "2026-12-31" })).id;
    const [a, b, c, none] = [await t("2026-03-01"), await t("2026-05-01"), await t("2026-04-01"), await t(null)];
    const list = async (query: string) =>
      (expectSuccess(await api(`/v1/tasks?projectId=${projectId}&${query}`, { key: tenant.key })).data as Array<{ id: string }>).map(
        (x) => x.id,
      );
    expect(await list("startBefore=2026-05-01")).toEqual([a, c]);
    expect(await list("startAfter=2026-03-01")).toEqual([b, c]);
    expect(await list("")).toEqual([a, b, c, none]);
    await refusedCall(tenant, "/v1/tasks?sort=startDate", {}, 400, "invalid_field", { field: "sort" });
    await refusedCall(tenant, "/v1/tasks?startBefore=soon", {}, 400, "invalid_field", { field: "startBefore" });
  });
});
