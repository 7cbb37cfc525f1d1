import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { personBody, projectBody } from "../helpers/resources.ts";
import { committed, expectBatchRefused, expectSameRefusal, feed, singleCall } from "./helpers.ts";

// `ifMatch` on an operation is its single call's If-Match header (docs/api.md "Idempotency and
// concurrency"): the ETag's forms ("3", W/"3", 3, *), as a string or a number; a version that is
// not the record's is 412 precondition_failed with currentVersion, the whole batch refused.

describe("ifMatch that matches", () => {
  it("every form of the ETag, as a string or a number, on changes and a delete", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const task = await tenant.insertTask({ projectId: project.id });
    const etag = (await api(`/v1/projects/${project.id}`, { key: tenant.key })).headers.get("etag");
    expect(etag).toBe('"1"');
    const answer = await committed(tenant.key, [
      { method: "PATCH", path: `/v1/projects/${project.id}`, ifMatch: etag!, body: { name: "One" } },
      { method: "PATCH", path: `/v1/projects/${project.id}`, ifMatch: 'W/"2"', body: { name: "Two" } },
      { method: "PATCH", path: `/v1/projects/${project.id}`, ifMatch: "3", body: { name: "Three" } },
      { method: "PATCH", path: `/v1/projects/${project.id}`, ifMatch: 4, body: { name: "Four" } },
      { method: "PATCH", path: `/v1/projects/${project.id}`, ifMatch: "*", body: { name: "Five" } },
      { method: "DELETE", path: `/v1/tasks/${task.id}`, ifMatch: 1 },
    ]);
    expect(answer.data.map((r) => [r.status, r.data.name ?? r.data.title, r.data.version])).toEqual([
      [200, "One", 2],
      [200, "Two", 3],
      [200, "Three", 4],
      [200, "Four", 5],
      [200, "Five", 6],
      [200, task.title, 1],
    ]);
    expect((await feed(tenant.key, 0)).map((e) => e.type)).toEqual([...Array(5).fill("project.updated"), "task.deleted"]);
  });

  it("on a PUT by external id: the version of the record it changes", async () => {
    const tenant = await createTenant();
    const answer = await committed(tenant.key, [
      { method: "PUT", path: "/v1/personnel/by-external-id/hr-7", body: personBody({ name: "First" }) },
      { method: "PUT", path: "/v1/personnel/by-external-id/hr-7", ifMatch: 1, body: personBody({ name: "Second" }) },
    ]);
    expect(answer.data.map((r) => [r.status, r.data.name, r.data.version])).toEqual([
      [201, "First", 1],
      [200, "Second", 2],
    ]);
  });
});

describe("ifMatch that does not: 412 precondition_failed, currentVersion, error.operation, nothing written", () => {
  it("a stale version of a change, after writes of the batch: as the single call", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { title: "Now version 2" } }));
    const stale = { method: "PATCH", path: `/v1/tasks/${task.id}`, ifMatch: '"1"', body: { priority: "urgent" } };
    const { response } = await expectBatchRefused(
      tenant,
      [{ method: "POST", path: "/v1/projects", body: projectBody() }, { method: "POST", path: "/v1/personnel", body: personBody() }, stale],
      412,
      "precondition_failed",
      {
        currentVersion: 2,
        operation: 2,
      },
    );
    expectSameRefusal(response, await singleCall(tenant.key, stale), 2);
  });

  it("a version the batch's own earlier change made stale: currentVersion as the batch left it", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    await expectBatchRefused(
      tenant,
      [
        { method: "PATCH", path: `/v1/projects/${project.id}`, ifMatch: 1, body: { name: "v2" } },
        { method: "PATCH", path: `/v1/projects/${project.id}`, ifMatch: 1, body: { name: "v3?" } },
      ],
      412,
      "precondition_failed",
      { currentVersion: 2, operation: 1 },
    );
  });

  it("a stale delete: as the single call", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    const stale = { method: "DELETE", path: `/v1/tasks/${task.id}`, ifMatch: 2 };
    const { response } = await expectBatchRefused(
      tenant,
      [{ method: "POST", path: "/v1/projects", body: projectBody() }, stale],
      412,
      "precondition_failed",
      { operation: 1 },
    );
    // (The single DELETE answers no currentVersion either, though docs/api.md lists it for every 412: reported.)
    expectSameRefusal(response, await singleCall(tenant.key, stale), 1);
  });

  it("a version on a PUT whose external id names no record yet: 412 on If-Match, as the single call", async () => {
    const tenant = await createTenant();
    const put = { method: "PUT", path: "/v1/personnel/by-external-id/hr-new", ifMatch: 1, body: personBody() };
    const { response } = await expectBatchRefused(
      tenant,
      [{ method: "POST", path: "/v1/projects", body: projectBody() }, put],
      412,
      "precondition_failed",
      { field: "If-Match", operation: 1 },
    );
    expectSameRefusal(response, await singleCall(tenant.key, put), 1);
  });
});
