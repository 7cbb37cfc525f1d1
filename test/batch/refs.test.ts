import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { milestoneBody, personBody, projectBody } from "../helpers/resources.ts";
import { committed, expectBatchRefused, type Operation } from "./helpers.ts";

// References between the operations of a batch (docs/api.md "Batches"): an operation named by
// `ref` is "$<ref>.id" to the later ones, as a whole string value of a body or a whole path
// segment: the id of the record it creates, or, for a change or delete, the id in its path. Only
// an exact "$<ref>.id" is a reference; a ref must be defined by an earlier operation, once; a PUT
// by external id cannot be named. Every refusal writes nothing.

describe("what a reference stands for", () => {
  it("a create's new record, in a path segment and in body fields", async () => {
    const tenant = await createTenant();
    const answer = await committed(tenant.key, [
      { method: "POST", path: "/v1/projects", ref: "move", body: projectBody() },
      { method: "POST", path: "/v1/personnel", ref: "mover", body: personBody() },
      { method: "POST", path: "/v1/projects/$move.id/milestones", ref: "packed", body: milestoneBody() },
      {
        method: "POST",
        path: "/v1/tasks",
        ref: "van",
        body: { title: "Van", projectId: "$move.id", milestoneId: "$packed.id", assigneeId: "$mover.id", dueDate: "2026-06-30" },
      },
      { method: "PATCH", path: "/v1/tasks/$van.id", body: { status: "in_progress" } },
      { method: "PATCH", path: "/v1/milestones/$packed.id", body: { name: "Packed, all of it" } },
    ]);
    const [project, person, milestone, task, patched, renamed] = answer.data.map((r) => r.data);
    expect(milestone).toMatchObject({ projectId: project!.id });
    expect(task).toMatchObject({ projectId: project!.id, milestoneId: milestone!.id, assigneeId: person!.id });
    expect(patched).toMatchObject({ id: task!.id, status: "in_progress" });
    expect(renamed).toMatchObject({ id: milestone!.id, name: "Packed, all of it" });
    // Stored so: the records read back name each other.
    expect(expectSuccess(await api(`/v1/tasks/${task!.id}`, { key: tenant.key })).data).toMatchObject({
      projectId: project!.id,
      milestoneId: milestone!.id,
      status: "in_progress",
    });
  });

  it("a change's or a delete's record: the id in its path (itself perhaps a reference)", async () => {
    const tenant = await createTenant();
    const existing = await tenant.insertProject();
    const doomed = await tenant.insertProject();
    const answer = await committed(tenant.key, [
      { method: "PATCH", path: `/v1/projects/${existing.id}`, ref: "kept", body: { status: "active" } },
      { method: "POST", path: "/v1/risks", ref: "risk", body: { title: "On the kept project", projectId: "$kept.id" } },
      { method: "PATCH", path: "/v1/risks/$risk.id", ref: "same", body: { status: "mitigated" } },
      { method: "PATCH", path: "/v1/risks/$same.id", body: { title: "Renamed through a second ref" } },
      { method: "DELETE", path: `/v1/projects/${doomed.id}`, ref: "gone" },
      {
        method: "POST",
        path: "/v1/issues",
        body: { title: "Mentions the deleted project", description: "$gone.id", projectId: "$kept.id" },
      },
    ]);
    const [, risk, mitigated, renamed, deleted, issue] = answer.data.map((r) => r.data);
    expect(risk).toMatchObject({ projectId: existing.id });
    expect(mitigated).toMatchObject({ id: risk!.id, status: "mitigated", version: 2 });
    expect(renamed).toMatchObject({ id: risk!.id, title: "Renamed through a second ref", version: 3 });
    expect(deleted).toMatchObject({ id: doomed.id });
    // A whole string value anywhere in a body is a reference, a free-text field too.
    expect(issue).toMatchObject({ projectId: existing.id, description: doomed.id });
  });

  it('only an exact "$<ref>.id" is one: other strings that mention it are kept as sent', async () => {
    const tenant = await createTenant();
    const literal = ["see $p.id", "$p.id ", " $p.id", "$p.idx", "$p.name", "$$p.id", "$p.ID", "{$p.id}"];
    const answer = await committed(tenant.key, [
      { method: "POST", path: "/v1/projects", ref: "p", body: projectBody() },
      ...literal.map((description): Operation => ({ method: "POST", path: "/v1/projects", body: projectBody({ description }) })),
    ]);
    expect(answer.data.slice(1).map((r) => r.data.description)).toEqual(literal);
  });

  it("refs are case-sensitive: $P.id is not $p.id", async () => {
    const tenant = await createTenant();
    await expectBatchRefused(
      tenant,
      [
        { method: "POST", path: "/v1/projects", ref: "p", body: projectBody() },
        { method: "POST", path: "/v1/risks", body: { title: "R", projectId: "$P.id" } },
      ],
      400,
      "invalid_field",
      {
        field: "projectId",
        operation: 1,
      },
    );
  });

  it("a later operation sees what an earlier one did to the record it names: a reference to a project the batch deleted is invalid", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    await expectBatchRefused(
      tenant,
      [
        { method: "POST", path: "/v1/personnel", body: personBody() },
        { method: "DELETE", path: `/v1/projects/${project.id}`, ref: "gone" },
        { method: "POST", path: "/v1/risks", body: { title: "On a deleted project", projectId: "$gone.id" } },
      ],
      400,
      "invalid_reference",
      { field: "projectId", operation: 2 },
    );
  });
});

describe("references that do not resolve: 400 invalid_field, error.operation the operation naming it, nothing written", () => {
  const first = (): Operation => ({ method: "POST", path: "/v1/projects", ref: "p", body: projectBody() });

  it("a ref no operation defines, in a body: the body field", async () => {
    const tenant = await createTenant();
    await expectBatchRefused(
      tenant,
      [first(), { method: "POST", path: "/v1/risks", body: { title: "R", projectId: "$q.id" } }],
      400,
      "invalid_field",
      { field: "projectId", operation: 1 },
    );
  });

  it("a ref no operation defines, in a path: operations.<i>.path", async () => {
    const tenant = await createTenant();
    await expectBatchRefused(
      tenant,
      [first(), { method: "POST", path: "/v1/projects/$q.id/milestones", body: milestoneBody() }],
      400,
      "invalid_field",
      { field: "operations.1.path", operation: 1 },
    );
  });

  it("a ref a later operation defines", async () => {
    const tenant = await createTenant();
    await expectBatchRefused(
      tenant,
      [{ method: "POST", path: "/v1/risks", body: { title: "Too early", projectId: "$p.id" } }, first()],
      400,
      "invalid_field",
      { field: "projectId", operation: 0 },
    );
    await expectBatchRefused(tenant, [{ method: "DELETE", path: "/v1/projects/$p.id" }, first()], 400, "invalid_field", {
      field: "operations.0.path",
      operation: 0,
    });
  });

  it("an operation's own ref, in its own body", async () => {
    const tenant = await createTenant();
    await expectBatchRefused(
      tenant,
      [first(), { method: "POST", path: "/v1/projects", ref: "self", body: projectBody({ description: "$self.id" }) }],
      400,
      "invalid_field",
      {
        field: "description",
        operation: 1,
      },
    );
  });

  it("a ref defined twice: operations.<i>.ref of the second", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask();
    await expectBatchRefused(
      tenant,
      [
        first(),
        { method: "PATCH", path: `/v1/tasks/${task.id}`, body: {} },
        { method: "PATCH", path: `/v1/tasks/${task.id}`, ref: "p", body: { title: "x" } },
      ],
      400,
      "invalid_field",
      {
        field: "operations.2.ref",
        operation: 2,
      },
    );
  });

  it("a ref on a PUT by external id (its id is known only once it has run): operations.<i>.ref", async () => {
    const tenant = await createTenant();
    await expectBatchRefused(
      tenant,
      [first(), { method: "PUT", path: "/v1/personnel/by-external-id/hr-1", ref: "hr", body: personBody() }],
      400,
      "invalid_field",
      {
        field: "operations.1.ref",
        operation: 1,
      },
    );
  });

  it("a reference that is not a whole path segment is no reference: the single call's invalid id", async () => {
    const tenant = await createTenant();
    await expectBatchRefused(
      tenant,
      [first(), { method: "PATCH", path: "/v1/projects/x$p.id", body: { name: "x" } }],
      400,
      "invalid_field",
      { field: "id", operation: 1 },
    );
  });
});
