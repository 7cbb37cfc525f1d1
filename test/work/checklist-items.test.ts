import { describe, expect, it } from "vitest";
import { MAX_CHECKLIST_ITEMS_PER_TASK } from "../../domain/limits.ts";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { expectOneWrite, refusedCall, storedEvents } from "../helpers/resources.ts";
import { checklistItemBody, insertChecklistItems, insertComment, insertTaskIn } from "../helpers/work.ts";

// A task's checklist (docs/api.md "Checklists"): items listed and added under their task
// (tasks.read, tasks.manage), reached by their own id; a title of 1 to 200 characters, done or
// not, in the order they were added; at most MAX_CHECKLIST_ITEMS_PER_TASK on a task (409 on
// taskId); deleted with their task, an event each.

const onTask = (tenant: Tenant) => insertTaskIn(tenant);
const anItem = async (tenant: Tenant) => (await insertChecklistItems(tenant, await insertTaskIn(tenant)))[0]!;

describeRefusals({ method: "GET", path: (id) => `/v1/tasks/${id}/checklist-items`, scope: "tasks.read", record: onTask });
describeRefusals({
  method: "POST",
  path: (id) => `/v1/tasks/${id}/checklist-items`,
  scope: "tasks.manage",
  record: onTask,
  body: () => checklistItemBody(),
});
describeRefusals({ method: "GET", path: (id) => `/v1/checklist-items/${id}`, scope: "tasks.read", record: anItem });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/checklist-items/${id}`,
  scope: "tasks.manage",
  record: anItem,
  body: () => ({ done: true }),
});
describeRefusals({ method: "DELETE", path: (id) => `/v1/checklist-items/${id}`, scope: "tasks.manage", record: anItem });
describeRefusals({
  method: "PUT",
  path: () => "/v1/checklist-items/by-external-id/site-list-1",
  scope: "tasks.manage",
  body: async (tenant) => checklistItemBody({ taskId: await insertTaskIn(tenant) }),
});

const add = (tenant: Tenant, task: string, fields: Record<string, unknown> = {}) =>
  api(`/v1/tasks/${task}/checklist-items`, { key: tenant.key, body: checklistItemBody(fields) });
const idsOf = (page: { data: { id: string }[] }) => page.data.map((item) => item.id);

describe("a task's checklist", () => {
  it("an item added is not done, keeps its task and project; checklistItem.created for tasks.read", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const projectId = (await query<{ project_id: string }>("select project_id from tasks where id = $1", [task]))[0]!.project_id;
    const before = await snapshot(tenant.org.id);
    const data = expectSuccess(await add(tenant, task, { title: "Test and label each circuit" }), 201).data;
    expect(data).toMatchObject({
      taskId: task,
      projectId,
      title: "Test and label each circuit",
      done: false,
      externalId: null,
      version: 1,
    });
    const event = await expectOneWrite(tenant.org.id, before, "checklistItem.created");
    expect([event.scope, event.data]).toEqual(["tasks.read", data]);
    expect(expectSuccess(await api(`/v1/checklist-items/${data.id}`, { key: tenant.key })).data).toEqual(data);
  });

  it("lists in the order items were added, paged, only the task's own; ?done= narrows it; an unknown task is 404", async () => {
    const tenant = await createTenant();
    const [task, other] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    const ids: string[] = [];
    for (const done of [false, true, false]) ids.push(expectSuccess(await add(tenant, task, { done }), 201).data.id);
    expectSuccess(await add(tenant, other), 201);
    const page = expectSuccess(await api(`/v1/tasks/${task}/checklist-items?limit=2`, { key: tenant.key }));
    expect([idsOf(page), page.message]).toEqual([ids.slice(0, 2), "2 checklist items"]);
    expect(
      idsOf(expectSuccess(await api(`/v1/tasks/${task}/checklist-items?limit=2&cursor=${page.nextCursor}`, { key: tenant.key }))),
    ).toEqual(ids.slice(2));
    expect(idsOf(expectSuccess(await api(`/v1/tasks/${task}/checklist-items?done=true`, { key: tenant.key })))).toEqual([ids[1]]);
    expect(idsOf(expectSuccess(await api(`/v1/tasks/${task}/checklist-items?done=false`, { key: tenant.key })))).toEqual([ids[0], ids[2]]);
    expectError(await api(`/v1/tasks/${task}/checklist-items?done=yes`, { key: tenant.key }), 400, "invalid_field", { field: "done" });
    const foreign = await insertTaskIn(await createTenant());
    expectError(await api(`/v1/tasks/${foreign}/checklist-items`, { key: tenant.key }), 404, "not_found");
  });

  it("ticking an item off is checklistItem.updated with changes.done; a retitle changes the title; an unchanged PATCH writes nothing", async () => {
    const tenant = await createTenant();
    const id = expectSuccess(await add(tenant, await insertTaskIn(tenant)), 201).data.id;
    let before = await snapshot(tenant.org.id);
    expect(
      expectSuccess(await api(`/v1/checklist-items/${id}`, { key: tenant.key, method: "PATCH", body: { done: true } })).data,
    ).toMatchObject({ done: true, version: 2 });
    expect((await expectOneWrite(tenant.org.id, before, "checklistItem.updated")).changes).toEqual({ done: { from: false, to: true } });
    before = await snapshot(tenant.org.id);
    expect(
      expectSuccess(await api(`/v1/checklist-items/${id}`, { key: tenant.key, method: "PATCH", body: { title: "Retitled" } })).data,
    ).toMatchObject({ title: "Retitled", done: true, version: 3 });
    await expectOneWrite(tenant.org.id, before, "checklistItem.updated");
    before = await snapshot(tenant.org.id);
    expect(
      expectSuccess(await api(`/v1/checklist-items/${id}`, { key: tenant.key, method: "PATCH", body: { done: true } })).data,
    ).toMatchObject({ version: 3 });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("refuses an empty, blank, too long or NUL title, a done that is not a boolean, a task field on a change, and another organisation's task (404)", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    for (const title of ["", "   ", "x".repeat(201), "a\u0000b", 7]) {
      await refusedCall(tenant, `/v1/tasks/${task}/checklist-items`, { method: "POST", body: { title } }, 400, "invalid_field", {
        field: "title",
      });
    }
    await refusedCall(tenant, `/v1/tasks/${task}/checklist-items`, { method: "POST", body: { done: false } }, 400, "missing_field", {
      field: "title",
    });
    await refusedCall(
      tenant,
      `/v1/tasks/${task}/checklist-items`,
      { method: "POST", body: { title: "Ok", done: "yes" } },
      400,
      "invalid_field",
      { field: "done" },
    );
    expectSuccess(await add(tenant, task, { title: "x".repeat(200) }), 201);
    const [item] = await insertChecklistItems(tenant, task);
    await refusedCall(
      tenant,
      `/v1/checklist-items/${item}`,
      { method: "PATCH", body: { taskId: await insertTaskIn(tenant) } },
      400,
      "unknown_field",
      { field: "taskId" },
    );
    await refusedCall(
      tenant,
      `/v1/tasks/${await insertTaskIn(await createTenant())}/checklist-items`,
      { method: "POST", body: checklistItemBody() },
      404,
      "not_found",
    );
  });

  it("PUT by external id adds an item to the task named, then changes it; the task cannot change, and a foreign task is invalid_reference", async () => {
    const tenant = await createTenant();
    const [task, other] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    const put = (body: Record<string, unknown>) =>
      api("/v1/checklist-items/by-external-id/site-list-7", { key: tenant.key, method: "PUT", body });
    const created = expectSuccess(await put({ taskId: task, title: "v1" }), 201).data;
    expect(created).toMatchObject({ taskId: task, title: "v1", done: false, externalId: "site-list-7" });
    expect(expectSuccess(await put({ taskId: task, title: "v2", done: true })).data).toMatchObject({
      id: created.id,
      title: "v2",
      done: true,
      version: 2,
    });
    await refusedCall(
      tenant,
      "/v1/checklist-items/by-external-id/site-list-7",
      { method: "PUT", body: { taskId: other, title: "v3" } },
      409,
      "conflict",
      { field: "taskId" },
    );
    const foreign = await insertTaskIn(await createTenant());
    await refusedCall(
      tenant,
      "/v1/checklist-items/by-external-id/site-list-8",
      { method: "PUT", body: { taskId: foreign, title: "v1" } },
      400,
      "invalid_reference",
      { field: "taskId" },
    );
  });

  it(`holds at most ${MAX_CHECKLIST_ITEMS_PER_TASK} items: one more is 409 conflict on taskId (maxChecklistItems), by POST and by PUT; another task has room`, async () => {
    const tenant = await createTenant();
    const [task, another] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    await insertChecklistItems(tenant, task, MAX_CHECKLIST_ITEMS_PER_TASK);
    const full = { field: "taskId", maxChecklistItems: MAX_CHECKLIST_ITEMS_PER_TASK };
    await refusedCall(tenant, `/v1/tasks/${task}/checklist-items`, { method: "POST", body: checklistItemBody() }, 409, "conflict", full);
    await refusedCall(
      tenant,
      "/v1/checklist-items/by-external-id/one-more",
      { method: "PUT", body: checklistItemBody({ taskId: task }) },
      409,
      "conflict",
      full,
    );
    expectSuccess(await add(tenant, another), 201);
  });

  it("an item's events carry its task's project: GET /v1/events?projectId= finds them; its history reads them", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const projectId = (await query<{ project_id: string }>("select project_id from tasks where id = $1", [task]))[0]!.project_id;
    const id = expectSuccess(await add(tenant, task), 201).data.id;
    expectSuccess(await api(`/v1/checklist-items/${id}`, { key: tenant.key, method: "PATCH", body: { done: true } }));
    const feed = expectSuccess(await api(`/v1/events?projectId=${projectId}&types=checklistItem.*`, { key: tenant.key }));
    expect(feed.data.map((e: { type: string; data: { id: string } }) => [e.type, e.data.id])).toEqual([
      ["checklistItem.created", id],
      ["checklistItem.updated", id],
    ]);
    const history = expectSuccess(await api(`/v1/checklist-items/${id}/history`, { key: tenant.key }));
    expect(history.data.map((e: { type: string }) => e.type)).toEqual(["checklistItem.created", "checklistItem.updated"]);
  });
});

describe("a deleted task takes its checklist with it", () => {
  it("a checklistItem.deleted event each, after its comments' and before task.deleted; the items are gone", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const comment = await insertComment(tenant, task);
    const items = await insertChecklistItems(tenant, task, 2);
    expectSuccess(await api(`/v1/tasks/${task}`, { key: tenant.key, method: "DELETE" }));
    const events = (await storedEvents(tenant.org.id)).map((e) => [e.type, e.data.id]);
    expect(events).toEqual([
      ["comment.deleted", comment],
      ...items.sort().map((id) => ["checklistItem.deleted", id]),
      ["task.deleted", task],
    ]);
    expect(await query("select id from checklist_items where task_id = $1", [task])).toEqual([]);
    expectError(await api(`/v1/checklist-items/${items[0]}`, { key: tenant.key }), 404, "not_found");
  });

  it("deleting an item is checklistItem.deleted, answering the item as it was", async () => {
    const tenant = await createTenant();
    const [item] = await insertChecklistItems(tenant, await insertTaskIn(tenant));
    const before = await snapshot(tenant.org.id);
    expect(expectSuccess(await api(`/v1/checklist-items/${item}`, { key: tenant.key, method: "DELETE" })).data).toMatchObject({
      id: item,
      done: false,
    });
    await expectOneWrite(tenant.org.id, before, "checklistItem.deleted");
  });
});
