import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { expectOneWrite, expectRefused, refusedCall } from "../helpers/resources.ts";
import { RESOURCES, newExternalId, type Body, type ExternalIdResource } from "./resources.ts";

// externalId on the seven resources (docs/api.md "External ids"): every record answers it (null
// when unset); it is set on create, changed by PATCH and cleared by PATCH null, each a write with
// its event; `?externalId=` on every list finds exactly the record that has it; it is unique per
// organisation and resource, so another record's is 409 conflict on externalId and leaves no
// trace, while another organisation, or another resource, may use the same one.

type Rec = Body & { id: string; version: number; externalId: string | null };

/** POST through the API; answers the created record. */
async function post(resource: ExternalIdResource, tenant: Tenant, fields: Body = {}): Promise<Rec> {
  const { path, body } = await resource.post(tenant);
  return expectSuccess<Rec>(await api(path, { key: tenant.key, body: { ...body, ...fields } }), 201).data;
}

/** The ids the list answers for `?externalId=` (exact match), checking the envelope's count. */
async function listed(resource: ExternalIdResource, tenant: Tenant, record: Body, externalId: string): Promise<string[]> {
  const page = expectSuccess<Rec[]>(
    await api(`${resource.list(record)}?externalId=${encodeURIComponent(externalId)}`, { key: tenant.key }),
  );
  expect(page.count).toBe(page.data.length);
  return page.data.map((r) => r.id);
}

const get = async (resource: ExternalIdResource, tenant: Tenant, id: string) =>
  expectSuccess<Rec>(await api(`/v1/${resource.name}/${id}`, { key: tenant.key })).data;

for (const resource of RESOURCES) {
  describe(`${resource.name}: externalId`, () => {
    it("is null when unset; set on create, read back, found by the list filter; PATCH changes it and PATCH null clears it", async () => {
      const tenant = await createTenant();
      const unset = await post(resource, tenant);
      expect(unset.externalId).toBeNull();

      const externalId = newExternalId();
      let before = await snapshot(tenant.org.id);
      const record = await post(resource, tenant, { externalId });
      expect(record.externalId).toBe(externalId);
      const created = await expectOneWrite(tenant.org.id, before, `${resource.type}.created`);
      expect(created.data).toEqual(record);
      expect(await get(resource, tenant, record.id)).toEqual(record);

      // Exact match: the one record, not the unset one, nor by a prefix or another letter case.
      expect(await listed(resource, tenant, record, externalId)).toEqual([record.id]);
      expect(await listed(resource, tenant, record, externalId.slice(0, -1))).toEqual([]);
      expect(await listed(resource, tenant, record, externalId.toUpperCase())).toEqual([]);
      expect(await listed(resource, tenant, record, `${externalId} `)).toEqual([]);

      const renamed = newExternalId("renamed");
      before = await snapshot(tenant.org.id);
      const changed = expectSuccess<Rec>(
        await api(`/v1/${resource.name}/${record.id}`, { key: tenant.key, method: "PATCH", body: { externalId: renamed } }),
      ).data;
      expect(changed).toEqual({ ...record, externalId: renamed, version: 2, updatedAt: changed.updatedAt });
      const updated = await expectOneWrite(tenant.org.id, before, `${resource.type}.updated`);
      expect(updated.changes).toEqual({ externalId: { from: externalId, to: renamed } });
      expect(await get(resource, tenant, record.id)).toEqual(changed);
      expect(await listed(resource, tenant, record, externalId)).toEqual([]);
      expect(await listed(resource, tenant, record, renamed)).toEqual([record.id]);

      // Its own externalId again: no conflict with itself, and nothing to change.
      before = await snapshot(tenant.org.id);
      const same = await api(`/v1/${resource.name}/${record.id}`, { key: tenant.key, method: "PATCH", body: { externalId: renamed } });
      expect(expectSuccess<Rec>(same).data).toEqual(changed);
      expectNoTrace(before, await snapshot(tenant.org.id));

      before = await snapshot(tenant.org.id);
      const cleared = expectSuccess<Rec>(
        await api(`/v1/${resource.name}/${record.id}`, { key: tenant.key, method: "PATCH", body: { externalId: null } }),
      ).data;
      expect(cleared).toEqual({ ...changed, externalId: null, version: 3, updatedAt: cleared.updatedAt });
      const clearing = await expectOneWrite(tenant.org.id, before, `${resource.type}.updated`);
      expect(clearing.changes).toEqual({ externalId: { from: renamed, to: null } });
      expect(await listed(resource, tenant, record, renamed)).toEqual([]);

      // A cleared externalId is free again: another record takes it, and an old record takes its first one back.
      const successor = await post(resource, tenant, { externalId: renamed });
      expect(await listed(resource, tenant, successor, renamed)).toEqual([successor.id]);
      const back = expectSuccess<Rec>(
        await api(`/v1/${resource.name}/${record.id}`, { key: tenant.key, method: "PATCH", body: { externalId } }),
      ).data;
      expect(back.externalId).toBe(externalId);
    });

    it("another record's externalId: 409 conflict on externalId on create and on change, no trace", async () => {
      const tenant = await createTenant();
      const externalId = newExternalId();
      const holder = await post(resource, tenant, { externalId });
      const other = await post(resource, tenant);
      await refusedCall(tenant, `/v1/${resource.name}/${other.id}`, { method: "PATCH", body: { externalId } }, 409, "conflict", {
        field: "externalId",
      });
      // With another field beside it: the whole change is refused, not the externalId alone.
      await refusedCall(
        tenant,
        `/v1/${resource.name}/${other.id}`,
        { method: "PATCH", body: { ...resource.change, externalId } },
        409,
        "conflict",
        {
          field: "externalId",
        },
      );
      // A record that has one, taking the holder's.
      const third = await post(resource, tenant, { externalId: newExternalId() });
      await refusedCall(tenant, `/v1/${resource.name}/${third.id}`, { method: "PATCH", body: { externalId } }, 409, "conflict", {
        field: "externalId",
      });

      expect(await get(resource, tenant, holder.id)).toEqual(holder);
      expect(await listed(resource, tenant, holder, externalId)).toEqual([holder.id]);

      const { path, body } = await resource.post(tenant);
      await refusedCall(tenant, path, { body: { ...body, externalId } }, 409, "conflict", { field: "externalId" });
    });

    it("another organisation may use the same externalId; neither sees the other's", async () => {
      const [a, b] = [await createTenant(), await createTenant()];
      const externalId = newExternalId();
      const ofA = await post(resource, a, { externalId });
      const beforeA = await snapshot(a.org.id);
      const ofB = await post(resource, b, { externalId });
      expect(ofB.externalId).toBe(externalId);
      expect(ofB.orgId).toBe(b.org.id);
      expectNoTrace(beforeA, await snapshot(a.org.id));
      expect(await listed(resource, a, ofA, externalId)).toEqual([ofA.id]);
      expect(await listed(resource, b, ofB, externalId)).toEqual([ofB.id]);

      // Within B, the externalId is taken by B's own record.
      const other = await post(resource, b);
      await refusedCall(b, `/v1/${resource.name}/${other.id}`, { method: "PATCH", body: { externalId } }, 409, "conflict", {
        field: "externalId",
      });
    });

    it("an invalid externalId is 400 invalid_field on create, change and the list filter, no trace", async () => {
      const tenant = await createTenant();
      const record = await post(resource, tenant, { externalId: newExternalId() });
      const { path, body } = await resource.post(tenant);
      const invalid: unknown[] = ["", "x".repeat(201), "crm\u00004471", 4471, ["crm-4471"]];
      for (const externalId of invalid) {
        await refusedCall(tenant, path, { body: { ...body, externalId } }, 400, "invalid_field", { field: "externalId" });
        await refusedCall(tenant, `/v1/${resource.name}/${record.id}`, { method: "PATCH", body: { externalId } }, 400, "invalid_field", {
          field: "externalId",
        });
      }
      for (const externalId of ["", "x".repeat(201), "crm\u00004471"]) {
        await expectRefused(
          tenant.org.id,
          () => api(`${resource.list(record)}?externalId=${encodeURIComponent(externalId)}`, { key: tenant.key }),
          400,
          "invalid_field",
          { field: "externalId" },
        );
      }
      // The bounds: 1 and 200 characters, any of them (spaces, slashes, letters of any script).
      for (const externalId of ["x", "y".repeat(200), "crm/4471 ä?&=#%"]) {
        const made = await post(resource, tenant, { externalId });
        expect(made.externalId).toBe(externalId);
        expect(await listed(resource, tenant, made, externalId)).toEqual([made.id]);
      }
    });
  });
}

describe("externalId across resources", () => {
  it("one externalId on a record of each of the seven resources of one organisation: each its own, each list finds its own", async () => {
    const tenant = await createTenant();
    const externalId = newExternalId("shared");
    const records = [];
    for (const resource of RESOURCES) records.push({ resource, record: await post(resource, tenant, { externalId }) });
    for (const { resource, record } of records) {
      expect(record.externalId).toBe(externalId);
      expect(await listed(resource, tenant, record, externalId)).toEqual([record.id]);
    }
    expect(new Set(records.map(({ record }) => record.id)).size).toBe(RESOURCES.length);
  });

  it("milestones: the filter stays within the project in the path", async () => {
    const tenant = await createTenant();
    const milestones = RESOURCES.find((r) => r.name === "milestones")!;
    const externalId = newExternalId();
    const record = await post(milestones, tenant, { externalId });
    const otherProject = await tenant.insertProject();
    expect(await listed(milestones, tenant, record, externalId)).toEqual([record.id]);
    expect(await listed(milestones, tenant, { projectId: otherProject.id }, externalId)).toEqual([]);
  });
});
