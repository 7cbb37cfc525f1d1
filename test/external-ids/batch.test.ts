import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { query, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { refusedCall, storedEvents } from "../helpers/resources.ts";
import { RESOURCES, newExternalId, type Body } from "./resources.ts";

// PUT by external id inside POST /v1/batch (docs/api.md "Batches"): each PUT answers what the
// single call would (201 when it created, 200 when it changed or found nothing to change), later
// operations see what earlier ones wrote (a create then an update of one externalId), the events
// carry the batch's id at consecutive changeVersions; a refused PUT refuses the whole batch with
// error.operation and leaves no trace; a `ref` on a PUT is refused (its id is unknown before it runs).

interface BatchAnswer {
  batchId: string | null;
  changeVersion: number;
  data: { status: number; data: Body & { id: string; version: number; externalId: string | null } }[];
}

const resourceNamed = (name: string) => RESOURCES.find((r) => r.name === name)!;
const putPath = (name: string, externalId: string) => `/v1/${name}/by-external-id/${encodeURIComponent(externalId)}`;

describe("POST /v1/batch with PUTs by external id", () => {
  it("create then update of one externalId: 201 then 200, one record, task.created then task.updated carrying the batchId", async () => {
    const tenant = await createTenant();
    const body = await resourceNamed("tasks").put(tenant);
    const externalId = newExternalId();
    const before = await snapshot(tenant.org.id);
    const answer = expectSuccess(
      await api("/v1/batch", {
        key: tenant.key,
        body: {
          operations: [
            { method: "PUT", path: putPath("tasks", externalId), body },
            { method: "PUT", path: putPath("tasks", externalId), body: { ...body, title: "Renamed in the batch", status: "in_progress" } },
          ],
        },
      }),
    ) as unknown as BatchAnswer;
    expect(answer.data.map((d) => d.status)).toEqual([201, 200]);
    const [created, changed] = [answer.data[0]!.data, answer.data[1]!.data];
    expect(created).toMatchObject({ ...body, externalId, version: 1, status: "todo" });
    expect(changed).toEqual({ ...created, title: "Renamed in the batch", status: "in_progress", version: 2, updatedAt: changed.updatedAt });

    const events = await storedEvents(tenant.org.id, before.changeVersion);
    expect(events.map((e) => [e.type, e.changeVersion])).toEqual([
      ["task.created", before.changeVersion + 1],
      ["task.updated", before.changeVersion + 2],
    ]);
    expect(events[1]!.changes).toEqual({
      title: { from: body.title, to: "Renamed in the batch" },
      status: { from: "todo", to: "in_progress" },
    });
    expect(answer.changeVersion).toBe(before.changeVersion + 2);
    expect(answer.batchId).toEqual(expect.any(String));
    const batchIds = await query<{ batch_id: string | null }>("select batch_id from events where org_id = $1 and change_version > $2", [
      tenant.org.id,
      before.changeVersion,
    ]);
    expect(batchIds.map((e) => e.batch_id)).toEqual([answer.batchId, answer.batchId]);
    const rows = await query<{ id: string }>("select id from tasks where org_id = $1 and external_id = $2", [tenant.org.id, externalId]);
    expect(rows.map((r) => r.id)).toEqual([created.id]);
    expect((await snapshot(tenant.org.id)).rows.tasks).toBe(before.rows.tasks! + 1);
  });

  it("PUTs of every resource in one batch, new and existing, beside a POST: each answers as its single call would", async () => {
    const tenant = await createTenant();
    const projectId = (await tenant.insertProject()).id;
    const existing = newExternalId("existing");
    const existingBody = await resourceNamed("risks").put(tenant);
    const made = expectSuccess(await api(putPath("risks", existing), { key: tenant.key, method: "PUT", body: existingBody }), 201).data as {
      id: string;
    };
    const externalId = newExternalId("batch");
    const operations = [];
    for (const resource of RESOURCES)
      operations.push({ method: "PUT", path: putPath(resource.name, externalId), body: await resource.put(tenant) });
    operations.push({ method: "PUT", path: putPath("risks", existing), body: existingBody }); // nothing to change
    operations.push({ method: "PUT", path: putPath("risks", existing), body: { ...existingBody, status: "mitigated" } });
    operations.push({
      method: "POST",
      path: `/v1/projects/${projectId}/milestones`,
      body: { name: "Posted beside", dueDate: "2026-07-01" },
    });
    const before = await snapshot(tenant.org.id);
    const answer = expectSuccess(await api("/v1/batch", { key: tenant.key, body: { operations } })) as unknown as BatchAnswer;
    expect(answer.data.map((d) => d.status)).toEqual([...RESOURCES.map(() => 201), 200, 200, 201]);
    RESOURCES.forEach((resource, i) => expect(answer.data[i]!.data.externalId, resource.name).toBe(externalId));
    expect(answer.data[RESOURCES.length]!.data).toMatchObject({ id: made.id, version: 1 });
    expect(answer.data[RESOURCES.length + 1]!.data).toMatchObject({ id: made.id, version: 2, status: "mitigated" });

    // The no-op wrote no event: 7 creates, 1 update, 1 create.
    const events = await storedEvents(tenant.org.id, before.changeVersion);
    expect(events.map((e) => e.type)).toEqual([...RESOURCES.map((r) => `${r.type}.created`), "risk.updated", "milestone.created"]);
    expect(events.map((e) => e.changeVersion)).toEqual(events.map((_, i) => before.changeVersion + 1 + i));
    expect(answer.changeVersion).toBe(before.changeVersion + events.length);
  });

  it("a batch whose only PUT changes nothing: 200 with status 200, no event, no changeVersion move", async () => {
    const tenant = await createTenant();
    const externalId = newExternalId();
    const body = await resourceNamed("projects").put(tenant);
    const record = expectSuccess(await api(putPath("projects", externalId), { key: tenant.key, method: "PUT", body }), 201).data as Body;
    const before = await snapshot(tenant.org.id);
    const answer = expectSuccess(
      await api("/v1/batch", { key: tenant.key, body: { operations: [{ method: "PUT", path: putPath("projects", externalId), body }] } }),
    ) as unknown as BatchAnswer;
    expect(answer.data).toEqual([{ status: 200, data: record }]);
    expect(answer.batchId).toBeNull();
    expect(await snapshot(tenant.org.id)).toEqual(before);
  });

  it("a refused PUT refuses the whole batch with error.operation, no trace: the workflow, a fixed projectId, If-Match, a reference", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const body = await resourceNamed("tasks").put(tenant);
    const existing = newExternalId("existing");
    expectSuccess(await api(putPath("tasks", existing), { key: tenant.key, method: "PUT", body }), 201);
    const fresh = { method: "PUT", path: putPath("tasks", newExternalId("fresh")), body };
    const cases: Array<[Body, number, string, Body]> = [
      [
        { method: "PUT", path: putPath("tasks", existing), body: { ...body, status: "done" } },
        409,
        "invalid_transition",
        { field: "status" },
      ],
      [
        { method: "PUT", path: putPath("tasks", existing), body: { ...body, projectId: (await tenant.insertProject()).id } },
        409,
        "conflict",
        { field: "projectId" },
      ],
      [{ method: "PUT", path: putPath("tasks", existing), body, ifMatch: '"7"' }, 412, "precondition_failed", {}],
      [{ method: "PUT", path: putPath("tasks", newExternalId("none")), body, ifMatch: '"1"' }, 412, "precondition_failed", {}],
      [
        { method: "PUT", path: putPath("tasks", newExternalId("none")), body: { ...body, assigneeId: (await other.insertPerson()).id } },
        400,
        "invalid_reference",
        { field: "assigneeId" },
      ],
      [
        { method: "PUT", path: putPath("tasks", newExternalId("none")), body: { ...body, externalId: "in-the-body" } },
        400,
        "unknown_field",
        { field: "externalId" },
      ],
      [{ method: "PUT", path: `/v1/tasks/by-external-id/${"x".repeat(201)}`, body }, 400, "invalid_field", { field: "externalId" }],
    ];
    for (const [operation, status, code, details] of cases) {
      // The first operation would create a task: it is rolled back with the refused second one.
      await refusedCall(tenant, "/v1/batch", { body: { operations: [fresh, operation] } }, status, code, { ...details, operation: 1 });
    }
  });

  it("the externalId in an operation's path is URL-decoded as the single call's is: both name one record", async () => {
    const tenant = await createTenant();
    const externalId = "crm/44 71?a=b&c#d%25-東京";
    const body = await resourceNamed("issues").put(tenant);
    const record = expectSuccess(await api(putPath("issues", externalId), { key: tenant.key, method: "PUT", body }), 201).data as Body;
    expect(record.externalId).toBe(externalId);
    const answer = expectSuccess(
      await api("/v1/batch", {
        key: tenant.key,
        body: { operations: [{ method: "PUT", path: putPath("issues", externalId), body: { ...body, severity: "high" } }] },
      }),
    ) as unknown as BatchAnswer;
    expect(answer.data).toEqual([
      { status: 200, data: { ...record, severity: "high", version: 2, updatedAt: answer.data[0]!.data.updatedAt } },
    ]);
  });

  it("a ref on a PUT is 400 invalid_field on that operation's ref, no trace", async () => {
    const tenant = await createTenant();
    const body = await resourceNamed("projects").put(tenant);
    await refusedCall(
      tenant,
      "/v1/batch",
      {
        body: {
          operations: [
            { method: "POST", path: "/v1/projects", body: projectLike(body), ref: "first" },
            { method: "PUT", path: putPath("projects", newExternalId()), body, ref: "upserted" },
          ],
        },
      },
      400,
      "invalid_field",
      { field: "operations.1.ref" },
    );
  });

  it("a key without the PUT's scope: 403 insufficient_scope naming it, with the operation, no trace", async () => {
    const tenant = await createTenant();
    const key = (await tenant.keyWith(["projects.manage"])).key;
    const body = await resourceNamed("risks").put(tenant);
    const operations = [
      { method: "PUT", path: putPath("projects", newExternalId()), body: await resourceNamed("projects").put(tenant) },
      { method: "PUT", path: putPath("risks", newExternalId()), body },
    ];
    const before = await snapshot(tenant.org.id);
    const response = await api("/v1/batch", { key, body: { operations } });
    expect(response.status, response.text).toBe(403);
    expect(response.body.error).toMatchObject({ code: "insufficient_scope", scope: "risks.manage", operation: 1 });
    expect(await snapshot(tenant.org.id)).toEqual(before);
  });
});

const projectLike = (body: Body) => ({ ...body, name: `${String(body.name)} (posted)` });
