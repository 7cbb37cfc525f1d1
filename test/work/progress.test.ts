import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";

// Progress roll-ups (docs/api.md "Projects", "Milestones"): a project's and a milestone's tasks
// counted by status, computed in the statement that reads the record (no extra round trip: the
// bench's round-trip section times GET /v1/projects/:id), exact for the answer's changeVersion even
// under concurrent writes. They move without the record's
// version moving, and emit no event of the project's or milestone's.

async function arrange(tenant: Tenant, statuses: string[]) {
  const project = await tenant.insertProject();
  const milestone = await tenant.insertMilestone(project.id);
  const person = await tenant.insertPerson();
  const ids: string[] = [];
  for (const [i, status] of statuses.entries()) {
    // Every other task is in the milestone.
    ids.push(
      (
        await tenant.insertTask({
          projectId: project.id,
          assigneeId: person.id,
          status,
          ...(i % 2 === 0 ? { milestoneId: milestone.id } : {}),
        })
      ).id,
    );
  }
  return { project: project.id, milestone: milestone.id, ids };
}

describe("progress", () => {
  it("counts total, done, cancelled and open; percentDone is done over the tasks not cancelled, rounded down", async () => {
    const tenant = await createTenant();
    const { project, milestone } = await arrange(tenant, ["done", "done", "todo", "cancelled", "in_progress", "blocked", "done"]);
    expect(expectSuccess(await api(`/v1/projects/${project}`, { key: tenant.key })).data.progress).toEqual({
      total: 7,
      done: 3,
      cancelled: 1,
      open: 3,
      percentDone: 50,
    });
    // The milestone has tasks 0, 2, 4, 6: done, todo, in_progress, done.
    expect(expectSuccess(await api(`/v1/milestones/${milestone}`, { key: tenant.key })).data.progress).toEqual({
      total: 4,
      done: 2,
      cancelled: 0,
      open: 2,
      percentDone: 50,
    });
    const listed = expectSuccess(await api(`/v1/projects/${project}/milestones`, { key: tenant.key })).data;
    expect(listed[0].progress.total).toBe(4);
  });

  it("no tasks, or only cancelled ones: 0 percent; all done: 100", async () => {
    const tenant = await createTenant();
    const empty = await tenant.insertProject();
    expect(expectSuccess(await api(`/v1/projects/${empty.id}`, { key: tenant.key })).data.progress).toEqual({
      total: 0,
      done: 0,
      cancelled: 0,
      open: 0,
      percentDone: 0,
    });
    const { project: cancelled } = await arrange(tenant, ["cancelled"]);
    expect(expectSuccess(await api(`/v1/projects/${cancelled}`, { key: tenant.key })).data.progress.percentDone).toBe(0);
    const { project: finished } = await arrange(tenant, ["done", "done", "cancelled"]);
    expect(expectSuccess(await api(`/v1/projects/${finished}`, { key: tenant.key })).data.progress.percentDone).toBe(100);
    // 2 of 3: rounded down, never 100 before every task is done.
    const { project: most } = await arrange(tenant, ["done", "done", "todo"]);
    expect(expectSuccess(await api(`/v1/projects/${most}`, { key: tenant.key })).data.progress.percentDone).toBe(66);
  });

  it("moves with its tasks without moving the project's version or writing a project event", async () => {
    const tenant = await createTenant();
    const { project, ids } = await arrange(tenant, ["in_progress", "todo"]);
    const before = expectSuccess(await api(`/v1/projects/${project}`, { key: tenant.key })).data;
    expectSuccess(await api(`/v1/tasks/${ids[0]}`, { key: tenant.key, method: "PATCH", body: { status: "done" } }));
    const after = expectSuccess(await api(`/v1/projects/${project}`, { key: tenant.key })).data;
    expect([after.version, after.progress.done]).toEqual([before.version, 1]);
    expect(await query("select type from events where org_id = $1", [tenant.org.id])).toEqual([{ type: "task.updated" }]);
  });

  it("is exact for the answer's changeVersion under concurrent writes", async () => {
    const tenant = await createTenant({ rateLimit: 100_000 });
    const { project, ids } = await arrange(
      tenant,
      Array.from({ length: 20 }, () => "in_progress"),
    );
    const writes = ids.map((id) => api(`/v1/tasks/${id}`, { key: tenant.key, method: "PATCH", body: { status: "done" } }));
    const reads: Promise<{ changeVersion: number; done: number }>[] = [];
    for (let i = 0; i < 10; i++) {
      reads.push(
        api(`/v1/projects/${project}`, { key: tenant.key }).then((r) => ({
          changeVersion: expectSuccess(r).changeVersion,
          done: r.body.data.progress.done,
        })),
      );
    }
    await Promise.all(writes);
    // Each write moved changeVersion by one and marked one task done: a read at changeVersion N saw N tasks done.
    for (const read of await Promise.all(reads)) expect(read.done).toBe(read.changeVersion);
    expect(expectSuccess(await api(`/v1/projects/${project}`, { key: tenant.key })).data.progress).toMatchObject({
      done: 20,
      percentDone: 100,
    });
  });
});
