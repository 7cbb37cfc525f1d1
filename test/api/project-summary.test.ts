import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { insertFinancialEntry, insertIssue, insertRisk } from "../helpers/project-records.ts";
import { describeRefusals } from "../helpers/refusals.ts";

// GET /v1/projects/:id/summary and GET /v1/overview: what the console's charts are drawn from,
// counted in the database over every record (not a page of them), each section only for a caller
// holding its records' read scope.

describeRefusals({
  method: "GET",
  path: (id) => `/v1/projects/${id}/summary`,
  scope: "projects.read",
  record: async (tenant) => (await tenant.insertProject()).id,
});

describeRefusals({ method: "GET", path: () => "/v1/overview", scope: "projects.read" });

const PAST = "2000-01-03";
const FUTURE = "2999-12-31";

/** A project with tasks, milestones, risks, issues and entries of every kind the summary counts. */
async function arrange(tenant: Tenant) {
  const project = await tenant.insertProject({ name: "Clinic refit", budget: "1000", status: "active" });
  const projectId = project.id;
  const person = await tenant.insertPerson();
  const task = (status: string, dueDate: string) => tenant.insertTask({ projectId, assigneeId: person.id, status, dueDate });
  await task("todo", PAST); // overdue
  await task("todo", FUTURE);
  await task("in_progress", PAST); // overdue
  await task("blocked", FUTURE);
  await task("done", PAST); // done: never overdue
  await task("cancelled", PAST);
  await tenant.insertMilestone(projectId, { dueDate: PAST }); // overdue
  await tenant.insertMilestone(projectId, { dueDate: PAST, status: "done" });
  await tenant.insertMilestone(projectId, { dueDate: FUTURE });
  await insertRisk(tenant, { project_id: projectId, title: "Lift", probability: "high", impact: "high" });
  await insertRisk(tenant, { project_id: projectId, title: "Asbestos", probability: "high", impact: "high" });
  await insertRisk(tenant, { project_id: projectId, title: "Rain", probability: "low", impact: "medium" });
  await insertRisk(tenant, { project_id: projectId, title: "Unknown" });
  await insertRisk(tenant, { project_id: projectId, title: "Gone", probability: "high", impact: "high", status: "closed" });
  await insertIssue(tenant, { project_id: projectId, severity: "critical" });
  await insertIssue(tenant, { project_id: projectId, severity: "low", status: "in_progress" });
  await insertIssue(tenant, { project_id: projectId });
  await insertIssue(tenant, { project_id: projectId, severity: "high", status: "resolved", resolved_at: new Date() });
  const entry = (kind: string, amount: string, date: string, currency = "EUR") =>
    insertFinancialEntry(tenant, { project_id: projectId, kind, amount, date, currency });
  await entry("cost", "100.10", "2026-01-15");
  await entry("cost", "200.20", "2026-01-31");
  await entry("adjustment", "-0.30", "2026-03-01");
  await entry("invoice", "5000", "2026-03-02"); // invoiced, not spent
  await entry("cost", "7.00", "2026-02-10", "USD");
  // Another project's records count for it alone.
  await tenant.insertTask({ status: "todo", dueDate: PAST });
  return projectId;
}

describe("GET /v1/projects/:id/summary", () => {
  it("counts every section from the records, exactly; reading writes nothing", async () => {
    const tenant = await createTenant();
    const projectId = await arrange(tenant);
    const before = await snapshot(tenant.org.id);
    const summary = expectSuccess(await api(`/v1/projects/${projectId}/summary`, { key: tenant.key })).data;
    expect(summary).toMatchObject({ projectId, name: "Clinic refit", status: "active", startDate: "2026-01-01", endDate: "2026-12-31" });
    expect(summary.today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(summary.tasks).toEqual({
      total: 6,
      open: 4,
      overdue: 2,
      byStatus: { todo: 2, in_progress: 1, blocked: 1, done: 1, cancelled: 1 },
    });
    expect(summary.milestones).toEqual({ total: 3, overdue: 1, byStatus: { open: 2, done: 1, cancelled: 0 } });
    expect(summary.risks).toEqual({
      open: 4,
      notAssessed: 1,
      severe: 2,
      matrix: [
        { probability: "high", impact: "high", count: 2, titles: ["Asbestos", "Lift"] },
        { probability: "low", impact: "medium", count: 1, titles: ["Rain"] },
      ],
    });
    expect(summary.issues).toEqual({ open: 3, bySeverity: { low: 1, medium: 0, high: 0, critical: 1, none: 1 } });
    expect(summary.money).toEqual({
      budget: "1000.00",
      currencies: [
        {
          currency: "EUR",
          spent: "300.00",
          months: [
            { month: "2026-01", spent: "300.30" },
            { month: "2026-03", spent: "-0.30" },
          ],
        },
        { currency: "USD", spent: "7.00", months: [{ month: "2026-02", spent: "7.00" }] },
      ],
    });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("a new project: zero counts, no matrix cells, no currencies", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject({ budget: "25000" });
    const summary = expectSuccess(await api(`/v1/projects/${project.id}/summary`, { key: tenant.key })).data;
    expect(summary.tasks).toMatchObject({ total: 0, open: 0, overdue: 0 });
    expect(summary.risks).toEqual({ open: 0, notAssessed: 0, severe: 0, matrix: [] });
    expect(summary.money).toEqual({ budget: "25000.00", currencies: [] });
  });

  it("names at most five risks in a cell; its count says how many there are", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    for (const title of ["G", "F", "E", "D", "C", "B", "A"])
      await insertRisk(tenant, { project_id: project.id, title, probability: "medium", impact: "low" });
    const { risks } = expectSuccess(await api(`/v1/projects/${project.id}/summary`, { key: tenant.key })).data;
    expect(risks.matrix).toEqual([{ probability: "medium", impact: "low", count: 7, titles: ["A", "B", "C", "D", "E"] }]);
  });

  it("leaves out (null) each section whose read scope the key lacks", async () => {
    const tenant = await createTenant();
    const projectId = await arrange(tenant);
    const key = await tenant.keyWith(["projects.read", "risks.read"]);
    const summary = expectSuccess(await api(`/v1/projects/${projectId}/summary`, { key: key.key })).data;
    expect(summary).toMatchObject({ tasks: null, progress: null, issues: null, money: null, milestones: { total: 3 } });
    expect(summary.risks.open).toBe(4);
  });
});

describe("the summary's progress over time", () => {
  it("counts, a point a week to today, the tasks made and those done by then, done when the event moved them there", async () => {
    const tenant = await createTenant();
    const day = (at: Date) => at.toISOString().slice(0, 10);
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
    const project = await tenant.insertProject({ startDate: day(daysAgo(30)), endDate: "2999-12-31" });
    const person = await tenant.insertPerson();
    const at = { projectId: project.id, assigneeId: person.id };
    /** A task inserted as if made `made` days ago and last changed `changed` days ago. */
    const aged = async (fields: Parameters<Tenant["insertTask"]>[0], made: number, changed = made) => {
      const task = await tenant.insertTask(fields);
      await query(`update tasks set created_at = $2, updated_at = $3 where id = $1`, [task.id, daysAgo(made), daysAgo(changed)]);
    };
    // Made three weeks ago: one still to do, one done the day after (no event: its last change says when).
    await aged(at, 21);
    await aged({ ...at, status: "done" }, 21, 20);
    // Made through the API today and moved to done; its move dated ten days back (as if made then),
    // then retitled today: done counts from the move, not from the last change.
    const made = expectSuccess(
      await api("/v1/tasks", { key: tenant.key, method: "POST", body: { ...at, title: "Pour", dueDate: "2999-01-01" } }),
      201,
    ).data;
    let version = made.version;
    for (const status of ["in_progress", "done"])
      version = expectSuccess(await api(`/v1/tasks/${made.id}`, { key: tenant.key, method: "PATCH", body: { status } })).data.version;
    await query(
      `update events set occurred_at = now() - interval '10 days'
        where org_id = $1 and data->>'id' = $2 and changes->'status'->>'to' = 'done'`,
      [tenant.org.id, made.id],
    );
    expectSuccess(await api(`/v1/tasks/${made.id}`, { key: tenant.key, method: "PATCH", body: { title: "Pour again" } }));
    expect(version).toBeGreaterThan(made.version);
    // Cancelled and another project's tasks: counted made (cancelled) or not at all.
    await aged({ ...at, status: "cancelled" }, 5);
    await aged({ assigneeId: person.id, status: "done" }, 21);

    const { progress, today } = expectSuccess(await api(`/v1/projects/${project.id}/summary`, { key: tenant.key })).data;
    const made_ = [day(daysAgo(21)), day(daysAgo(21)), day(new Date()), day(daysAgo(5))];
    const done = [day(daysAgo(20)), day(daysAgo(10))];
    expect(progress.length).toBeGreaterThanOrEqual(5);
    expect(progress.at(-1).date).toBe(today);
    // From the week the project started (30 days ago), every week's last day (a Sunday), then today.
    expect(progress[0].date >= day(daysAgo(30)) && progress[0].date <= day(daysAgo(24))).toBe(true);
    for (const [i, point] of progress.entries()) {
      if (i < progress.length - 1) expect(new Date(`${point.date}T00:00:00Z`).getUTCDay()).toBe(0);
      if (i > 0) expect(point.date > progress[i - 1].date).toBe(true);
      expect(point, point.date).toEqual({
        date: point.date,
        total: made_.filter((d) => d <= point.date).length,
        done: done.filter((d) => d <= point.date).length,
      });
    }
    expect(progress.at(-1)).toMatchObject({ total: 4, done: 2 });
  });
});

describe("GET /v1/overview", () => {
  it("every project's health, a page at a time in creation order, the cursor ending at the last", async () => {
    const tenant = await createTenant();
    const first = await arrange(tenant);
    const others = [(await tenant.insertProject()).id, (await tenant.insertProject()).id];
    const response = await api("/v1/overview?limit=2", { key: tenant.key });
    const page = { body: expectSuccess(response), headers: response.headers };
    // arrange() made two projects (the clinic and the other task's).
    expect(page.body.count).toBe(2);
    expect(page.body.data[0]).toMatchObject({
      projectId: first,
      tasks: { total: 6, open: 4, overdue: 2 },
      milestones: { total: 3, overdue: 1 },
      risks: { open: 4, notAssessed: 1, severe: 2 },
      issues: { open: 3 },
      money: {
        budget: "1000.00",
        currencies: [
          { currency: "EUR", spent: "300.00" },
          { currency: "USD", spent: "7.00" },
        ],
      },
    });
    expect(page.body.data[0].risks).not.toHaveProperty("matrix");
    expect(page.headers.get("link")).toContain("cursor=");
    const rest = expectSuccess(await api(`/v1/overview?limit=2&cursor=${page.body.nextCursor}`, { key: tenant.key }));
    expect(rest.data.map((p: { projectId: string }) => p.projectId)).toEqual(others);
    expect(rest.nextCursor).toBeNull();
  });

  it("refuses a cursor it did not make", async () => {
    const tenant = await createTenant();
    const response = await api("/v1/overview?cursor=nonsense", { key: tenant.key });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: "invalid_field", field: "cursor" });
  });
});
