import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, expectSuccess, workerUrl, type ApiResponse } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { expectShape, refusedCall, SHAPES } from "../helpers/resources.ts";

// Lists (docs/api.md "Lists"): limit 1..200, an opaque cursor walking (createdAt, id) order with
// nextCursor and a Link rel="next" header, unknown parameters refused, count and message.
// The task filters are in task-filters.test.ts.

interface ListCase {
  name: string;
  shape: keyof typeof SHAPES;
  table: string;
  /** Makes `n` records and answers the list path. */
  arrange(tenant: Tenant, n: number): Promise<string>;
}

const LISTS: ListCase[] = [
  {
    name: "projects",
    shape: "project",
    table: "projects",
    async arrange(tenant, n) {
      for (let i = 0; i < n; i++) await tenant.insertProject();
      return "/v1/projects";
    },
  },
  {
    name: "milestones",
    shape: "milestone",
    table: "milestones",
    async arrange(tenant, n) {
      const project = await tenant.insertProject();
      for (let i = 0; i < n; i++) await tenant.insertMilestone(project.id);
      return `/v1/projects/${project.id}/milestones`;
    },
  },
  {
    name: "tasks",
    shape: "task",
    table: "tasks",
    async arrange(tenant, n) {
      const [project, person] = [await tenant.insertProject(), await tenant.insertPerson()];
      for (let i = 0; i < n; i++) await tenant.insertTask({ projectId: project.id, assigneeId: person.id });
      return "/v1/tasks";
    },
  },
  {
    name: "personnel",
    shape: "personnel",
    table: "personnel",
    async arrange(tenant, n) {
      for (let i = 0; i < n; i++) await tenant.insertPerson();
      return "/v1/personnel";
    },
  },
];

/** The ids of the organisation's rows in (created_at, id) order: the order docs/api.md promises. */
async function expectedOrder(table: string, orgId: string): Promise<string[]> {
  const rows = await query<{ id: string }>(`select id from "${table}" where org_id = $1 order by created_at, id`, [orgId]);
  return rows.map((r) => r.id);
}

for (const list of LISTS) {
  describe(`GET ${list.name}: paging`, () => {
    it("walks every record exactly once in (createdAt, id) order, with Link until the last page", async () => {
      const tenant = await createTenant();
      const path = await list.arrange(tenant, 5);
      // Two records created in the same millisecond must still come in id order.
      await query(
        `update "${list.table}" set created_at = (select min(created_at) from "${list.table}" where org_id = $1) where org_id = $1`,
        [tenant.org.id],
      );
      const seen: string[] = [];
      const pages: number[] = [];
      let next: string | null = `${path}?limit=2`;
      while (next) {
        const response: ApiResponse = await api(next, { key: tenant.key });
        const page = expectSuccess(response);
        page.data.forEach((record: unknown) => expectShape(record, list.shape));
        expect(page.count).toBe(page.data.length);
        seen.push(...page.data.map((r: { id: string }) => r.id));
        pages.push(page.count!);
        const link: string | null = response.headers.get("link");
        if (page.nextCursor) {
          // The Link header names the same next page as the cursor.
          const url: URL = new URL(/^<([^>]+)>; rel="next"$/.exec(link ?? "")?.[1] ?? "", workerUrl());
          expect(url.searchParams.get("cursor")).toBe(page.nextCursor);
          expect(url.searchParams.get("limit")).toBe("2");
          next = `${url.pathname}${url.search}`;
        } else {
          expect(page.nextCursor).toBeNull();
          expect(link).toBeNull();
          next = null;
        }
      }
      expect(pages).toEqual([2, 2, 1]);
      expect(seen).toEqual(await expectedOrder(list.table, tenant.org.id));
    });

    it("limit is 1..200: 1 and 200 answer, 0, 201, -1, 2.5 and 'ten' are 400 invalid_field limit", async () => {
      const tenant = await createTenant();
      const path = await list.arrange(tenant, 2);
      const one = expectSuccess(await api(`${path}?limit=1`, { key: tenant.key }));
      expect(one).toMatchObject({ count: 1, nextCursor: expect.any(String) });
      expect(expectSuccess(await api(`${path}?limit=200`, { key: tenant.key }))).toMatchObject({ count: 2, nextCursor: null });
      for (const limit of ["0", "201", "-1", "2.5", "ten"]) {
        await refusedCall(tenant, `${path}?limit=${limit}`, {}, 400, "invalid_field", { field: "limit" });
      }
    });

    it("a cursor the API did not issue is 400 invalid_field cursor; an unknown parameter is 400 unknown_field", async () => {
      const tenant = await createTenant();
      const path = await list.arrange(tenant, 3);
      const cursor = expectSuccess(await api(`${path}?limit=1`, { key: tenant.key })).nextCursor!;
      const forged = Buffer.from("yesterday|not-an-id").toString("base64url");
      // Well-formed base64url of a cursor's shape whose content Postgres could not read: each
      // must be refused before the statement (it was a 500 once).
      const id = randomUUID();
      const impossible = [
        "2026-02-30T00:00:00.000Z",
        "0000-01-01T00:00:00.000Z",
        "2026-13-01T00:00:00.000Z",
        "2026-01-01T24:00:00.000Z",
      ].map((createdAt) => Buffer.from(`${createdAt}|${id}`).toString("base64url"));
      for (const bad of ["garbage!", cursor.slice(0, -6), `${cursor}x`, forged, ...impossible]) {
        await refusedCall(tenant, `${path}?cursor=${encodeURIComponent(bad)}`, {}, 400, "invalid_field", { field: "cursor" });
      }
      await refusedCall(tenant, `${path}?order=name`, {}, 400, "unknown_field", { field: "order" });
    });
  });
}

describe("list count and message", () => {
  it("says '0 tasks', '1 task', '2 tasks'", async () => {
    const tenant = await createTenant({ scopes: ["tasks.read"] });
    const sentence = async () => {
      const page = expectSuccess(await api("/v1/tasks", { key: tenant.key }));
      return [page.count, page.message];
    };
    expect(await sentence()).toEqual([0, "0 tasks"]);
    const task = await tenant.insertTask();
    expect(await sentence()).toEqual([1, "1 task"]);
    await tenant.insertTask({ projectId: task.projectId, assigneeId: task.assigneeId });
    expect(await sentence()).toEqual([2, "2 tasks"]);
  });

  it("says '1 project' and filters projects by status (comma list)", async () => {
    const tenant = await createTenant({ scopes: ["projects.read"] });
    const active = await tenant.insertProject({ status: "active" });
    const held = await tenant.insertProject({ status: "on_hold" });
    await tenant.insertProject();
    const page = async (q: string) => expectSuccess(await api(`/v1/projects${q}`, { key: tenant.key }));
    expect(await page("?status=active")).toMatchObject({ count: 1, message: "1 project", data: [{ id: active.id }] });
    expect((await page("?status=on_hold,active")).data.map((p: { id: string }) => p.id)).toEqual([active.id, held.id]);
    expect(await page("")).toMatchObject({ count: 3, message: "3 projects" });
  });
});
