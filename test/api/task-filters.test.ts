import { beforeAll, describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { refusedCall } from "../helpers/resources.ts";

// GET /v1/tasks filters (docs/api.md "Lists"): each narrows to exactly the matching tasks, they combine
// with AND, dueBefore/dueAfter are strict, updatedSince is inclusive, and a bad value is 400
// naming the parameter. One small dataset, read-only, shared by the file.

let tenant: Tenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  tenant = await createTenant({ scopes: ["tasks.read"] });
  const [p1, p2] = [await tenant.insertProject(), await tenant.insertProject()];
  const [alice, bob] = [await tenant.insertPerson(), await tenant.insertPerson()];
  const m1 = await tenant.insertMilestone(p1.id);
  Object.assign(ids, { p1: p1.id, p2: p2.id, alice: alice.id, bob: bob.id, m1: m1.id });
  const rows = [
    ["t1", p1.id, alice.id, m1.id, "todo", "high", "2026-03-01"],
    ["t2", p1.id, bob.id, null, "in_progress", "low", "2026-04-15"],
    ["t3", p2.id, alice.id, null, "done", "urgent", "2026-05-01"],
    ["t4", p2.id, bob.id, null, "blocked", "medium", "2026-06-30"],
    ["t5", p1.id, alice.id, m1.id, "cancelled", "high", "2026-04-15"],
  ] as const;
  for (const [name, projectId, assigneeId, milestoneId, status, priority, dueDate] of rows) {
    ids[name] = (await tenant.insertTask({ projectId, assigneeId, milestoneId, status, priority, dueDate })).id;
  }
  await query("update tasks set updated_at = '2026-01-01T00:00:00Z' where org_id = $1", [tenant.org.id]);
  await query("update tasks set updated_at = '2026-02-01T12:00:00Z' where id = $1", [ids.t4]);

  // Another organisation with look-alike tasks: none may appear in the lists above.
  const other = await createTenant();
  for (let i = 0; i < 2; i++) await other.insertTask({ status: "todo", priority: "high", dueDate: "2026-03-01" });
});

const names = (list: Array<{ id: string }>) => list.map((task) => Object.keys(ids).find((name) => ids[name] === task.id) ?? task.id);

describe("GET /v1/tasks filters", () => {
  const cases: Array<[string, () => string, string[]]> = [
    ["no filter", () => "", ["t1", "t2", "t3", "t4", "t5"]],
    ["projectId", () => `projectId=${ids.p1}`, ["t1", "t2", "t5"]],
    ["assigneeId", () => `assigneeId=${ids.bob}`, ["t2", "t4"]],
    ["milestoneId", () => `milestoneId=${ids.m1}`, ["t1", "t5"]],
    ["one status", () => "status=todo", ["t1"]],
    ["a status list", () => "status=in_progress,blocked", ["t2", "t4"]],
    ["one priority", () => "priority=high", ["t1", "t5"]],
    ["a priority list", () => "priority=low,urgent", ["t2", "t3"]],
    ["dueBefore (strict)", () => "dueBefore=2026-04-15", ["t1"]],
    ["dueAfter (strict)", () => "dueAfter=2026-04-15", ["t3", "t4"]],
    ["a due window", () => "dueAfter=2026-03-01&dueBefore=2026-05-01", ["t2", "t5"]],
    ["updatedSince (inclusive)", () => "updatedSince=2026-02-01T12:00:00Z", ["t4"]],
    ["updatedSince with an offset", () => "updatedSince=2026-02-01T13:00:00%2B01:00", ["t4"]],
    ["updatedSince after every change", () => "updatedSince=2026-02-01T12:00:00.001Z", []],
    ["several filters at once", () => `projectId=${ids.p1}&status=todo,cancelled&priority=high`, ["t1", "t5"]],
    ["a project with no matching task", () => `projectId=${ids.p2}&milestoneId=${ids.m1}`, []],
  ];
  for (const [label, params, expected] of cases) {
    it(`${label}: ${expected.join(", ") || "none"}`, async () => {
      const page = expectSuccess(await api(`/v1/tasks?${params()}`, { key: tenant.key }));
      expect(names(page.data)).toEqual(expected);
      expect(page.count).toBe(expected.length);
    });
  }

  it("paging keeps the filter: the next page is filtered too", async () => {
    const first = await api(`/v1/tasks?assigneeId=${ids.alice}&limit=2`, { key: tenant.key });
    const page1 = expectSuccess(first);
    const page2 = expectSuccess(await api(`/v1/tasks?assigneeId=${ids.alice}&limit=2&cursor=${page1.nextCursor}`, { key: tenant.key }));
    expect([...names(page1.data), ...names(page2.data)]).toEqual(["t1", "t3", "t5"]);
    expect(page2.nextCursor).toBeNull();
  });
});

describe("GET /v1/tasks invalid filters", () => {
  const invalid: Array<[string, string]> = [
    ["status=bogus", "status"],
    ["priority=critical", "priority"],
    ["dueBefore=2026-13-01", "dueBefore"],
    ["dueAfter=tomorrow", "dueAfter"],
    ["projectId=not-a-uuid", "projectId"],
    ["assigneeId=123", "assigneeId"],
    ["milestoneId=m1", "milestoneId"],
    ["updatedSince=yesterday", "updatedSince"],
    ["updatedSince=2026-02-01", "updatedSince"],
    // Years Postgres cannot read and days that do not exist: refused before the statement.
    ["updatedSince=0000-01-01T00:00:00Z", "updatedSince"],
    ["updatedSince=2026-02-30T00:00:00Z", "updatedSince"],
    ["dueBefore=0000-01-01", "dueBefore"],
    ["dueAfter=2026-02-30", "dueAfter"],
  ];
  for (const [params, field] of invalid) {
    it(`?${params}: 400 invalid_field naming ${field}`, async () => {
      await refusedCall(tenant, `/v1/tasks?${params}`, {}, 400, "invalid_field", { field });
    });
  }

  it("?status=todo,bogus (one bad value in a list): 400 invalid_field", async () => {
    await refusedCall(tenant, "/v1/tasks?status=todo,bogus", {}, 400, "invalid_field");
  });

  it("?title=x (not a filter): 400 unknown_field title", async () => {
    await refusedCall(tenant, "/v1/tasks?title=x", {}, 400, "unknown_field", { field: "title" });
  });
});
