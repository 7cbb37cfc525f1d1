import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, keyWith, type Tenant } from "../helpers/fixtures.ts";
import { asPerson, fixturesOf, memberOf, signUp } from "../helpers/people.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { expectOneWrite, refusedCall } from "../helpers/resources.ts";
import { commentBody, insertComment, insertTaskIn } from "../helpers/work.ts";

// Comments (docs/api.md "Comments"): listed and written under their task (tasks.read,
// tasks.manage), reached by their own id; the body is plain text or Markdown up to 10 000
// characters, stored as sent; the author is the caller (a key or a person); only the author, or an
// owner or admin, changes or deletes one (403 insufficient_role otherwise, nothing changes).

const onTask = async (tenant: Tenant) => insertTaskIn(tenant);
const aComment = async (tenant: Tenant) => insertComment(tenant, await insertTaskIn(tenant));

describeRefusals({ method: "GET", path: (id) => `/v1/tasks/${id}/comments`, scope: "tasks.read", record: onTask });
describeRefusals({
  method: "POST",
  path: (id) => `/v1/tasks/${id}/comments`,
  scope: "tasks.manage",
  record: onTask,
  body: () => commentBody(),
});
describeRefusals({ method: "GET", path: (id) => `/v1/comments/${id}`, scope: "tasks.read", record: aComment });
describeRefusals({
  method: "PATCH",
  path: (id) => `/v1/comments/${id}`,
  scope: "tasks.manage",
  record: aComment,
  body: () => ({ body: "Changed" }),
});
describeRefusals({ method: "DELETE", path: (id) => `/v1/comments/${id}`, scope: "tasks.manage", record: aComment });

const comment = (key: string, task: string, body: string) => api(`/v1/tasks/${task}/comments`, { key, body: { body } });

describe("writing and reading comments", () => {
  it("a comment keeps its body as sent, names its author (the key), its task and project; comment.created for tasks.read", async () => {
    const tenant = await createTenant({ application: "Site diary" });
    const task = await insertTaskIn(tenant);
    const projectId = (await query<{ project_id: string }>("select project_id from tasks where id = $1", [task]))[0]!.project_id;
    const body = "  **Van** booked for 7:30.\n\n- [ ] call ahead\n<script>alert(1)</script>  ";
    const before = await snapshot(tenant.org.id);
    const data = expectSuccess(await comment(tenant.key, task, body), 201).data;
    expect(data).toMatchObject({
      taskId: task,
      projectId,
      body,
      author: { type: "key", id: tenant.keyId, name: "Site diary" },
      version: 1,
    });
    const event = await expectOneWrite(tenant.org.id, before, "comment.created");
    expect([event.scope, event.data]).toEqual(["tasks.read", data]);
    expect(expectSuccess(await api(`/v1/comments/${data.id}`, { key: tenant.key })).data).toEqual(data);
  });

  it("a task's thread is oldest first, paged, and holds only its own comments", async () => {
    const tenant = await createTenant();
    const [task, other] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    const ids = [];
    for (const text of ["first", "second", "third"]) ids.push(expectSuccess(await comment(tenant.key, task, text), 201).data.id);
    await comment(tenant.key, other, "elsewhere");
    const page = expectSuccess(await api(`/v1/tasks/${task}/comments?limit=2`, { key: tenant.key }));
    expect(page.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
    const rest = expectSuccess(await api(`/v1/tasks/${task}/comments?limit=2&cursor=${page.nextCursor}`, { key: tenant.key }));
    expect(rest.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(2));
    expect(
      expectSuccess(await api(`/v1/tasks/${task}/comments?sort=-createdAt`, { key: tenant.key })).data.map((c: { id: string }) => c.id),
    ).toEqual([...ids].reverse());
  });

  it("refuses an empty, a too long or a NUL body, and a task that is not the organisation's (404)", async () => {
    const [tenant, other] = [await createTenant(), await createTenant()];
    const task = await insertTaskIn(tenant);
    for (const body of ["", "x".repeat(10_001), "a\u0000b", 7]) {
      await refusedCall(tenant, `/v1/tasks/${task}/comments`, { method: "POST", body: { body } }, 400, "invalid_field", { field: "body" });
    }
    expectSuccess(await comment(tenant.key, task, "x".repeat(10_000)), 201);
    await refusedCall(tenant, `/v1/tasks/${await insertTaskIn(other)}/comments`, { method: "POST", body: commentBody() }, 404, "not_found");
    await refusedCall(tenant, `/v1/tasks/${task}/comments`, { method: "POST", body: { body: "hi", author: "me" } }, 400, "unknown_field", {
      field: "author",
    });
  });

  it("PUT by external id writes a comment on the task named, then changes it; the task cannot change", async () => {
    const tenant = await createTenant();
    const [task, other] = [await insertTaskIn(tenant), await insertTaskIn(tenant)];
    const created = expectSuccess(
      await api("/v1/comments/by-external-id/diary-7", { key: tenant.key, method: "PUT", body: { taskId: task, body: "v1" } }),
      201,
    ).data;
    expect(created).toMatchObject({ taskId: task, body: "v1", externalId: "diary-7" });
    expect(
      expectSuccess(
        await api("/v1/comments/by-external-id/diary-7", { key: tenant.key, method: "PUT", body: { taskId: task, body: "v2" } }),
      ).data,
    ).toMatchObject({
      id: created.id,
      body: "v2",
      version: 2,
    });
    await refusedCall(
      tenant,
      "/v1/comments/by-external-id/diary-7",
      { method: "PUT", body: { taskId: other, body: "v3" } },
      409,
      "conflict",
      { field: "taskId" },
    );
  });
});

describe("who may change or delete a comment", () => {
  it("its author key may; another key of the organisation is 403 insufficient_role, nothing changes", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const id = expectSuccess(await comment(tenant.key, task, "mine"), 201).data.id;
    const other = await keyWith(tenant.org.id, ["tasks.manage"]);
    await refusedCall(
      { ...tenant, key: other.key },
      `/v1/comments/${id}`,
      { method: "PATCH", body: { body: "hijacked" } },
      403,
      "insufficient_role",
      { roles: ["owner", "admin"] },
    );
    await refusedCall({ ...tenant, key: other.key }, `/v1/comments/${id}`, { method: "DELETE" }, 403, "insufficient_role");
    expect(
      expectSuccess(await api(`/v1/comments/${id}`, { key: tenant.key, method: "PATCH", body: { body: "edited" } })).data,
    ).toMatchObject({ body: "edited", version: 2 });
    const before = await snapshot(tenant.org.id);
    expectSuccess(await api(`/v1/comments/${id}`, { key: tenant.key, method: "DELETE" }));
    await expectOneWrite(tenant.org.id, before, "comment.deleted");
  });

  it("a member may change their own comment but not another's; an owner or admin may change and delete anyone's", async () => {
    const owner = await signUp();
    const [member, admin, otherMember] = [await memberOf(owner, "member"), await memberOf(owner, "admin"), await memberOf(owner, "member")];
    const task = await insertTaskIn(fixturesOf(owner.orgId));
    const written = await asPerson(member.cookie, `/v1/tasks/${task}/comments`, { body: { body: "from the site" } });
    const id = expectSuccess(written, 201).data.id;
    expect(written.body.data.author).toEqual({ type: "user", id: member.userId, name: "member person" });
    expectSuccess(await asPerson(member.cookie, `/v1/comments/${id}`, { method: "PATCH", body: { body: "from the site, again" } }));

    const before = await snapshot(owner.orgId);
    expectError(
      await asPerson(otherMember.cookie, `/v1/comments/${id}`, { method: "PATCH", body: { body: "not mine" } }),
      403,
      "insufficient_role",
    );
    expectError(await asPerson(otherMember.cookie, `/v1/comments/${id}`, { method: "DELETE" }), 403, "insufficient_role");
    expectNoTrace(before, await snapshot(owner.orgId));

    expect(
      expectSuccess(await asPerson(admin.cookie, `/v1/comments/${id}`, { method: "PATCH", body: { body: "moderated" } })).data.author.id,
    ).toBe(member.userId);
    expectSuccess(await asPerson(owner.cookie, `/v1/comments/${id}`, { method: "DELETE" }));
  });
});

describe("a deleted task takes its comments with it", () => {
  it("a comment.deleted event each, before task.deleted; the thread is gone", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const ids = [await insertComment(tenant, task), await insertComment(tenant, task)];
    expectSuccess(await api(`/v1/tasks/${task}`, { key: tenant.key, method: "DELETE" }));
    const events = await query<{ type: string; id: string }>(
      "select type, data->>'id' as id from events where org_id = $1 order by change_version",
      [tenant.org.id],
    );
    expect(events).toEqual([...ids.sort().map((id) => ({ type: "comment.deleted", id })), { type: "task.deleted", id: task }]);
    expect(await query("select id from comments where task_id = $1", [task])).toEqual([]);
    expectError(await api(`/v1/comments/${ids[0]}`, { key: tenant.key }), 404, "not_found");
    // Its history stays readable while its events are kept.
    expect(
      expectSuccess(await api(`/v1/comments/${ids[0]}/history`, { key: tenant.key })).data.map((e: { type: string }) => e.type),
    ).toEqual(["comment.deleted"]);
  });
});
