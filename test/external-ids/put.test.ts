/* eslint-disable max-lines -- one subject, PUT by external id: the same cases run for every resource of the table above, then each resource's own rule. */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TASK_TRANSITIONS } from "../../domain/records.ts";
import type { Scope } from "../../domain/scopes.ts";
import { api, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, scopesWithout, type Tenant } from "../helpers/fixtures.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { expectOneWrite, expectRefused, refusedCall } from "../helpers/resources.ts";
import { RESOURCES, byExternalId, changesFor, newExternalId, type Body, type ExternalIdResource } from "./resources.ts";

// PUT /v1/<resource>/by-external-id/{externalId} (docs/api.md "External ids"): the body is a
// create's (without externalId; a milestone's names its project). No record has the externalId:
// it is created, 201 and <type>.created, as POST would. One has: the body's fields change it, 200
// and <type>.updated with its changes, as PATCH would; fields left out keep their values; a PUT
// that changes nothing is 200 with no event and no changeVersion move. projectId is create-only
// (409 on projectId when it differs). If-Match applies to the existing record, and is 412 when
// there is none. Every refusal (scope, validation, references, workflow, If-Match) leaves no trace.

type Rec = Body & { id: string; orgId: string; version: number; externalId: string | null };

function put(
  tenant: Tenant,
  resource: ExternalIdResource,
  externalId: string,
  body: Body,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return api(byExternalId(resource, externalId), { key: tenant.key, method: "PUT", body, headers });
}

/** Creates the record by PUT (201); answers it and the body that made it. */
async function putNew(
  tenant: Tenant,
  resource: ExternalIdResource,
  externalId: string,
  fields: Body = {},
): Promise<{ record: Rec; body: Body }> {
  const body = { ...(await resource.put(tenant)), ...fields };
  return { record: expectSuccess<Rec>(await put(tenant, resource, externalId, body), 201).data, body };
}

const get = async (tenant: Tenant, resource: ExternalIdResource, id: string) =>
  expectSuccess<Rec>(await api(`/v1/${resource.name}/${id}`, { key: tenant.key })).data;

const listed = async (tenant: Tenant, resource: ExternalIdResource, record: Body, externalId: string) =>
  expectSuccess<Rec[]>(await api(`${resource.list(record)}?externalId=${encodeURIComponent(externalId)}`, { key: tenant.key })).data.map(
    (r) => r.id,
  );

/** A refused PUT: the error, and no trace in the tenant's organisation. */
const refusedPut = (
  tenant: Tenant,
  resource: ExternalIdResource,
  externalId: string,
  body: Body,
  status: number,
  code: string,
  details: Body = {},
  headers: Record<string, string> = {},
) => refusedCall(tenant, byExternalId(resource, externalId), { method: "PUT", body, headers }, status, code, details);

const readScope = (scope: Scope) => scope.replace(/\.manage$/, ".read") as Scope;

for (const resource of RESOURCES) {
  // The key, scope and body-order refusals every write shares, each leaving no trace.
  describeRefusals({
    method: "PUT",
    path: () => `/v1/${resource.name}/by-external-id/refused-put`,
    scope: resource.scope,
    body: (tenant) => resource.put(tenant),
  });

  describe(`PUT /v1/${resource.name}/by-external-id/{externalId}`, () => {
    it(`no ${resource.type} has it: created, 201, ${resource.type}.created; GET and the list filter find it`, async () => {
      const tenant = await createTenant();
      const externalId = newExternalId();
      const body = { ...(await resource.put(tenant)), ...resource.kept };
      const before = await snapshot(tenant.org.id);
      const response = await put(tenant, resource, externalId, body);
      const record = expectSuccess<Rec>(response, 201).data;
      expect(record).toMatchObject({ ...body, externalId, orgId: tenant.org.id, version: 1 });
      expect(response.headers.get("etag")).toBe('"1"');
      const event = await expectOneWrite(tenant.org.id, before, `${resource.type}.created`);
      expect(event.data).toEqual(record);
      expect(event.changes).toBeNull();
      expect((await snapshot(tenant.org.id)).rows[resource.table]).toBe(before.rows[resource.table]! + 1);
      expect(await get(tenant, resource, record.id)).toEqual(record);
      expect(await listed(tenant, resource, record, externalId)).toEqual([record.id]);
    });

    it(`one has it: the body's fields change it, 200, ${resource.type}.updated with its changes; fields left out keep theirs`, async () => {
      const tenant = await createTenant();
      const externalId = newExternalId();
      const { record, body } = await putNew(tenant, resource, externalId, resource.kept);
      const before = await snapshot(tenant.org.id);
      // The body again without the kept field, with the change.
      const sent: Body = { ...body, ...resource.change };
      for (const field of Object.keys(resource.kept)) delete sent[field];
      const response = await put(tenant, resource, externalId, sent);
      const changed = expectSuccess<Rec>(response, 200).data;
      expect(changed).toEqual({ ...record, ...resource.change, version: 2, updatedAt: changed.updatedAt });
      expect(changed).toMatchObject(resource.kept);
      expect(response.headers.get("etag")).toBe('"2"');
      const event = await expectOneWrite(tenant.org.id, before, `${resource.type}.updated`);
      expect(event.changes).toEqual(changesFor(record, resource.change));
      expect(Object.keys(event.changes!).length).toBeGreaterThan(0);
      expect(event.data).toEqual(changed);
      expect((await snapshot(tenant.org.id)).rows[resource.table]).toBe(before.rows[resource.table]);
      expect(await get(tenant, resource, record.id)).toEqual(changed);
    });

    it("a PUT that changes nothing: 200 with the record as it is, no event, no changeVersion move", async () => {
      const tenant = await createTenant();
      const externalId = newExternalId();
      const { record, body } = await putNew(tenant, resource, externalId, resource.kept);
      const before = await snapshot(tenant.org.id);
      const again = await put(tenant, resource, externalId, body);
      expect(expectSuccess<Rec>(again, 200).data).toEqual(record);
      expect(again.headers.get("etag")).toBe('"1"');
      // Leaving out an optional field is no change either.
      const subset = { ...body };
      for (const field of Object.keys(resource.kept)) delete subset[field];
      expect(expectSuccess<Rec>(await put(tenant, resource, externalId, subset), 200).data).toEqual(record);
      expectNoTrace(before, await snapshot(tenant.org.id));
    });

    if (resource.fixedProject) {
      it("another projectId than the record's: 409 conflict on projectId, no trace; the record keeps its project", async () => {
        const tenant = await createTenant();
        const other = await createTenant();
        const externalId = newExternalId();
        const { record, body } = await putNew(tenant, resource, externalId);
        const ownOther = (await tenant.insertProject()).id;
        await refusedPut(tenant, resource, externalId, { ...body, projectId: ownOther }, 409, "conflict", { field: "projectId" });
        await refusedPut(tenant, resource, externalId, { ...body, ...resource.change, projectId: ownOther }, 409, "conflict", {
          field: "projectId",
        });
        const foreignProject = (await other.insertProject()).id;
        await expectRefused(
          [tenant.org.id, other.org.id],
          () => put(tenant, resource, externalId, { ...body, projectId: foreignProject }),
          409,
          "conflict",
          { field: "projectId" },
        );
        await refusedPut(tenant, resource, externalId, { ...body, projectId: randomUUID() }, 409, "conflict", { field: "projectId" });
        expect(await get(tenant, resource, record.id)).toEqual(record);
      });
    }

    it("If-Match applies to the existing record: a match changes it, a stale one is 412; with no record yet 412; * creates", async () => {
      const tenant = await createTenant();
      const externalId = newExternalId();
      const { record, body } = await putNew(tenant, resource, externalId);

      const matched = await put(tenant, resource, externalId, { ...body, ...resource.change }, { "if-match": '"1"' });
      const changed = expectSuccess<Rec>(matched, 200).data;
      expect(changed).toEqual({ ...record, ...resource.change, version: 2, updatedAt: changed.updatedAt });

      // Stale, whether or not the body would change anything.
      await refusedPut(tenant, resource, externalId, body, 412, "precondition_failed", { currentVersion: 2 }, { "if-match": '"1"' });
      await refusedPut(
        tenant,
        resource,
        externalId,
        { ...body, ...resource.change },
        412,
        "precondition_failed",
        { currentVersion: 2 },
        { "if-match": '"1"' },
      );
      await refusedPut(tenant, resource, externalId, body, 412, "precondition_failed", {}, { "if-match": '"3"' });
      // The current version, weak or not: the no-op answers the record as it is.
      expect(
        expectSuccess<Rec>(await put(tenant, resource, externalId, { ...body, ...resource.change }, { "if-match": 'W/"2"' })).data,
      ).toEqual(changed);
      const before = await snapshot(tenant.org.id);
      expect(
        expectSuccess<Rec>(await put(tenant, resource, externalId, { ...body, ...resource.change }, { "if-match": "2" })).data,
      ).toEqual(changed);
      expectNoTrace(before, await snapshot(tenant.org.id));

      // No record has this externalId: any version named is 412, and nothing is created.
      const fresh = newExternalId("fresh");
      const freshBody = await resource.put(tenant);
      await refusedPut(tenant, resource, fresh, freshBody, 412, "precondition_failed", { field: "If-Match" }, { "if-match": '"1"' });
      await refusedPut(tenant, resource, fresh, freshBody, 412, "precondition_failed", { field: "If-Match" }, { "if-match": '"0"' });
      await refusedPut(tenant, resource, fresh, freshBody, 400, "invalid_field", { field: "If-Match" }, { "if-match": "version-1" });
      // `*` is no precondition: it creates.
      const starred = expectSuccess<Rec>(await put(tenant, resource, fresh, freshBody, { "if-match": "*" }), 201).data;
      expect(starred.externalId).toBe(fresh);
    });

    it("validation refusals: 400 and no trace, for a new externalId and an existing one", async () => {
      const tenant = await createTenant();
      const existing = newExternalId();
      const { record } = await putNew(tenant, resource, existing);
      const body = await resource.put(tenant);
      const missing = { ...body };
      delete missing[resource.required];
      for (const externalId of [existing, newExternalId("fresh")]) {
        await refusedPut(tenant, resource, externalId, { ...body, externalId }, 400, "unknown_field", { field: "externalId" });
        await refusedPut(tenant, resource, externalId, { ...body, externalId: newExternalId() }, 400, "unknown_field", {
          field: "externalId",
        });
        await refusedPut(tenant, resource, externalId, { ...body, colour: "red" }, 400, "unknown_field", { field: "colour" });
        await refusedPut(tenant, resource, externalId, { ...body, ...resource.invalid.fields }, 400, "invalid_field", {
          field: resource.invalid.field,
        });
        await refusedPut(tenant, resource, externalId, missing, 400, "missing_field", { field: resource.required });
        await refusedCall(tenant, byExternalId(resource, externalId), { method: "PUT", rawBody: "{not json" }, 400, "invalid_json");
      }
      // The externalId in the path: 1..200 characters, no NUL.
      await refusedCall(tenant, `/v1/${resource.name}/by-external-id/${"x".repeat(201)}`, { method: "PUT", body }, 400, "invalid_field", {
        field: "externalId",
      });
      await refusedCall(tenant, `/v1/${resource.name}/by-external-id/crm%004471`, { method: "PUT", body }, 400, "invalid_field", {
        field: "externalId",
      });
      expect(await get(tenant, resource, record.id)).toEqual(record);
    });

    it(`scope: a key without ${resource.scope} (or with only its read scope) is 403, no trace, for a new and an existing externalId`, async () => {
      const tenant = await createTenant();
      const existing = newExternalId();
      const { record, body } = await putNew(tenant, resource, existing);
      const keys = [(await tenant.keyWith(scopesWithout(resource.scope))).key, (await tenant.keyWith([readScope(resource.scope)])).key];
      for (const key of keys) {
        for (const externalId of [existing, newExternalId("fresh")]) {
          await expectRefused(
            tenant.org.id,
            () => api(byExternalId(resource, externalId), { key, method: "PUT", body: { ...body, ...resource.change } }),
            403,
            "insufficient_scope",
            { scope: resource.scope },
          );
        }
      }
      expect(await get(tenant, resource, record.id)).toEqual(record);
    });

    if (resource.references.length > 0) {
      it("references: another organisation's id is 400 invalid_reference naming the field (a create-only one, 409 on an existing record), no trace in either", async () => {
        const tenant = await createTenant();
        const other = await createTenant();
        const existing = newExternalId();
        const { record, body } = await putNew(tenant, resource, existing);
        for (const reference of resource.references) {
          const foreign = await reference.foreign(other);
          const call = (externalId: string) => () => put(tenant, resource, externalId, { ...body, [reference.field]: foreign });
          await expectRefused([tenant.org.id, other.org.id], call(newExternalId("fresh")), 400, "invalid_reference", {
            field: reference.field,
          });
          if (reference.onChange) {
            await expectRefused([tenant.org.id, other.org.id], call(existing), 400, "invalid_reference", { field: reference.field });
          } else {
            await expectRefused([tenant.org.id, other.org.id], call(existing), 409, "conflict", { field: reference.field });
          }
          // An id no organisation has, likewise.
          await refusedPut(
            tenant,
            resource,
            newExternalId("fresh"),
            { ...body, [reference.field]: randomUUID() },
            400,
            "invalid_reference",
            { field: reference.field },
          );
        }
        expect(await get(tenant, resource, record.id)).toEqual(record);
      });
    }

    if (resource.name !== "personnel") {
      it("a deleted record's externalId is free: the next PUT creates a new record, 201", async () => {
        const tenant = await createTenant();
        const externalId = newExternalId();
        const { record, body } = await putNew(tenant, resource, externalId);
        expectSuccess(await api(`/v1/${resource.name}/${record.id}`, { key: tenant.key, method: "DELETE" }));
        expect(await listed(tenant, resource, record, externalId)).toEqual([]);
        const before = await snapshot(tenant.org.id);
        const again = expectSuccess<Rec>(await put(tenant, resource, externalId, body), 201).data;
        expect(again.id).not.toBe(record.id);
        expect(again).toMatchObject({ externalId, version: 1 });
        await expectOneWrite(tenant.org.id, before, `${resource.type}.created`);
      });
    }

    it("the externalId in the path is URL-decoded: slashes, spaces, reserved characters, any script; up to 200 characters", async () => {
      const tenant = await createTenant();
      for (const externalId of ["crm/44 71?a=b&c#d%25", "Ærøskøbing-東京-4471", "z".repeat(200)]) {
        const { record, body } = await putNew(tenant, resource, externalId);
        expect(record.externalId).toBe(externalId);
        const changed = expectSuccess<Rec>(await put(tenant, resource, externalId, { ...body, ...resource.change }), 200).data;
        expect(changed.id).toBe(record.id);
        expect(await listed(tenant, resource, record, externalId)).toEqual([record.id]);
        const rows = await query<{ id: string }>(`select id from ${resource.table} where org_id = $1 and external_id = $2`, [
          tenant.org.id,
          externalId,
        ]);
        expect(rows.map((r) => r.id)).toEqual([record.id]);
      }
    });
  });
}

const resourceNamed = (name: string) => RESOURCES.find((r) => r.name === name)!;

describe("PUT /v1/tasks/by-external-id: the task workflow and its references, as PATCH checks them", () => {
  const tasks = resourceNamed("tasks");

  it("a move outside the workflow is 409 invalid_transition with the allowed moves, no trace; a move along it is an update; status left out keeps it", async () => {
    const tenant = await createTenant();
    const externalId = newExternalId();
    const { record, body } = await putNew(tenant, tasks, externalId);
    expect(record.status).toBe("todo");
    await refusedPut(tenant, tasks, externalId, { ...body, status: "done" }, 409, "invalid_transition", {
      field: "status",
      from: "todo",
      allowed: [...TASK_TRANSITIONS.todo],
    });
    await refusedPut(tenant, tasks, externalId, { ...body, status: "blocked", title: "Also renamed" }, 409, "invalid_transition", {
      allowed: [...TASK_TRANSITIONS.todo],
    });

    let before = await snapshot(tenant.org.id);
    const moved = expectSuccess<Rec>(await put(tenant, tasks, externalId, { ...body, status: "in_progress" })).data;
    expect(moved.status).toBe("in_progress");
    expect((await expectOneWrite(tenant.org.id, before, "task.updated")).changes).toEqual({ status: { from: "todo", to: "in_progress" } });

    // The current status again, or none: nothing to change.
    before = await snapshot(tenant.org.id);
    expect(expectSuccess<Rec>(await put(tenant, tasks, externalId, { ...body, status: "in_progress" })).data).toEqual(moved);
    expect(expectSuccess<Rec>(await put(tenant, tasks, externalId, body)).data).toEqual(moved);
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("a new task may start in any status, as POST allows", async () => {
    const tenant = await createTenant();
    const body = await tasks.put(tenant);
    expect(expectSuccess<Rec>(await api("/v1/tasks", { key: tenant.key, body: { ...body, status: "done" } }), 201).data.status).toBe(
      "done",
    );
    expect(expectSuccess<Rec>(await put(tenant, tasks, newExternalId(), { ...body, status: "done" }), 201).data.status).toBe("done");
  });

  it("assignee and milestone: an inactive person or another project's milestone is 400 invalid_reference; the current assignee, since deactivated, may be resent", async () => {
    const tenant = await createTenant();
    const externalId = newExternalId();
    const { record, body } = await putNew(tenant, tasks, externalId);
    const inactive = await tenant.insertPerson({ active: false });
    const otherProject = await tenant.insertProject();
    const foreignMilestone = await tenant.insertMilestone(otherProject.id);
    for (const target of [externalId, newExternalId("fresh")]) {
      await refusedPut(tenant, tasks, target, { ...body, assigneeId: inactive.id }, 400, "invalid_reference", { field: "assigneeId" });
      await refusedPut(tenant, tasks, target, { ...body, milestoneId: foreignMilestone.id }, 400, "invalid_reference", {
        field: "milestoneId",
      });
    }
    // A milestone of the task's own project is fine.
    const own = await tenant.insertMilestone(String(body.projectId));
    const withMilestone = expectSuccess<Rec>(await put(tenant, tasks, externalId, { ...body, milestoneId: own.id })).data;
    expect(withMilestone.milestoneId).toBe(own.id);

    await query("update personnel set active = false where id = $1", [body.assigneeId]);
    const before = await snapshot(tenant.org.id);
    const resent = await put(tenant, tasks, externalId, { ...body, milestoneId: own.id });
    expect(expectSuccess<Rec>(resent).data).toEqual(withMilestone);
    expectNoTrace(before, await snapshot(tenant.org.id));
    expect(record.id).toBe(withMilestone.id);
  });
});

describe("PUT /v1/personnel/by-external-id: email stays unique in the organisation", () => {
  const personnel = resourceNamed("personnel");

  it("changing a person to another's email (any letter case) is 409 conflict on email, no trace", async () => {
    const tenant = await createTenant();
    const taken = await tenant.insertPerson();
    const externalId = newExternalId();
    const { record, body } = await putNew(tenant, personnel, externalId);
    await refusedPut(tenant, personnel, externalId, { ...body, email: taken.email.toUpperCase() }, 409, "conflict", { field: "email" });
    expect(await get(tenant, personnel, record.id)).toEqual(record);
  });

  it("creating a person with another's email (any letter case) is 409 conflict on email, as POST is, no trace", async () => {
    const tenant = await createTenant();
    const taken = await tenant.insertPerson();
    const body = { ...(await personnel.put(tenant)), email: taken.email.toUpperCase() };
    await refusedCall(tenant, "/v1/personnel", { body }, 409, "conflict", { field: "email" });
    await refusedPut(tenant, personnel, newExternalId(), body, 409, "conflict", { field: "email" });
  });
});

describe("PUT /v1/issues/by-external-id: resolvedAt follows the status, as PATCH keeps it", () => {
  const issues = resourceNamed("issues");

  it("created resolved: stamped; the same body again is no change (the stamp stays); reopened: cleared", async () => {
    const tenant = await createTenant();
    const externalId = newExternalId();
    const { record, body } = await putNew(tenant, issues, externalId, { status: "resolved" });
    expect(record.resolvedAt).toEqual(expect.any(String));
    let before = await snapshot(tenant.org.id);
    expect(expectSuccess<Rec>(await put(tenant, issues, externalId, body)).data).toEqual(record);
    expectNoTrace(before, await snapshot(tenant.org.id));

    before = await snapshot(tenant.org.id);
    const reopened = expectSuccess<Rec>(await put(tenant, issues, externalId, { ...body, status: "open" })).data;
    expect(reopened.resolvedAt).toBeNull();
    expect((await expectOneWrite(tenant.org.id, before, "issue.updated")).changes).toEqual({
      status: { from: "resolved", to: "open" },
      resolvedAt: { from: record.resolvedAt, to: null },
    });
  });
});

describe("PUT /v1/milestones/by-external-id: the project the body names", () => {
  const milestones = resourceNamed("milestones");

  it("a new milestone is created under it, listed there and nowhere else", async () => {
    const tenant = await createTenant();
    const [p, q] = [await tenant.insertProject(), await tenant.insertProject()];
    const externalId = newExternalId();
    const { record } = await putNew(tenant, milestones, externalId, { projectId: p.id });
    expect(record.projectId).toBe(p.id);
    expect(await listed(tenant, milestones, { projectId: p.id }, externalId)).toEqual([record.id]);
    expect(await listed(tenant, milestones, { projectId: q.id }, externalId)).toEqual([]);
  });
});
