import { describe, expect, it } from "vitest";
import { ANSWER_BYTES } from "../../db/statements/engine/answer-size.ts";
import { api, expectSuccess, type ApiResponse, type SuccessEnvelope } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { created, taskBody } from "../helpers/resources.ts";

// A page ends at its limit or at ANSWER_BYTES of records or events, whichever comes first
// (db/statements/engine/answer-size.ts): Neon's SQL-over-HTTP proxy answers at most 10 MiB, and sends
// every value escaped as a JSON string, so a page of 200 records of long descriptions (or with
// `expand`) could pass it. A page cut by size says so with nextCursor, and walking the pages
// still reaches every record once, in order.

/** Follows nextCursor from `path` to the end (`next` makes the next page's path from it); answers each page's body. */
async function walk(path: string, key: string, next = (cursor: string) => `${path}&cursor=${encodeURIComponent(cursor)}`) {
  type Page = SuccessEnvelope<Array<{ id: string; changeVersion: number }>>;
  const pages: Array<Page & { bytes: number }> = [];
  for (let cursor: string | null = null; pages.length === 0 || cursor !== null;) {
    const response: ApiResponse = await api(cursor === null ? path : next(cursor), { key });
    const body: Page = expectSuccess(response);
    pages.push({ ...body, bytes: Buffer.byteLength(JSON.stringify(body.data)) });
    cursor = body.nextCursor ?? null;
    if (pages.length > 50) throw new Error("more pages than records");
  }
  return pages;
}

describe("pages cut by size as well as by limit", () => {
  it(
    "GET /v1/tasks?limit=200&expand=assignee,project over 200 tasks of 20 KB each: pages of at most ANSWER_BYTES, every task once, in order",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      const project = await tenant.insertProject();
      const person = await tenant.insertPerson();
      // 10,000 quotes: 20 KB as JSON, and twice that again once Neon sends it escaped.
      const description = '"'.repeat(10_000);
      const ids: string[] = [];
      for (let batch = 0; batch < 10; batch++) {
        const made = await Promise.all(
          Array.from({ length: 20 }, () => tenant.insertTask({ projectId: project.id, assigneeId: person.id, description })),
        );
        ids.push(...made.map((task) => task.id));
      }
      const pages = await walk("/v1/tasks?limit=200&expand=assignee,project", tenant.key);
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) {
        expect(page.count).toBe(page.data.length);
        // The records' JSON as the API sends it: within the budget but for the one record that crossed it.
        expect(page.bytes).toBeLessThan(ANSWER_BYTES + 30_000);
      }
      expect(pages.slice(0, -1).every((page) => page.nextCursor !== null && page.data.length < 200)).toBe(true);
      expect(pages.at(-1)!.nextCursor).toBeNull();
      const listed = pages.flatMap((page) => page.data.map((task) => task.id));
      // Creation order is (createdAt, id); these were made 20 at a time, so compare as sets and check the order by the API's own sort.
      expect(new Set(listed).size).toBe(200);
      expect([...listed].sort()).toEqual([...ids].sort());
    },
  );

  /**
   * 300 task.updated events of the tenant's task, each the task's record with a description of
   * 8,000 three-byte characters (24 KB of JSON) and that description in its changes, as an edit
   * of a long description leaves them (48 KB each).
   */
  async function insertLargeTaskEvents(tenant: Tenant): Promise<string> {
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant));
    const record = { ...task, description: "€".repeat(8_000) };
    await query(
      `insert into events (id, org_id, change_version, type, scope, data, changes, actor, occurred_at, published_at)
       select gen_random_uuid(), $1, v, 'task.updated', 'tasks.read', $2::jsonb, jsonb_build_object('description', jsonb_build_object('from', null, 'to', $2::jsonb->'description')),
              '{"type":"system","id":null,"name":"opsroom"}'::jsonb, now(), now()
         from generate_series(2, 301) v`,
      [tenant.org.id, JSON.stringify(record)],
    );
    await query("update organisations set change_version = 301 where id = $1", [tenant.org.id]);
    return task.id as string;
  }

  const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it(
    "GET /v1/events?limit=200 over 300 events of 48 KB: pages of at most ANSWER_BYTES, every event once, in changeVersion order",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      await insertLargeTaskEvents(tenant);
      // The feed's nextCursor is the changeVersion to follow from.
      const pages = await walk("/v1/events?after=0&limit=200", tenant.key, (cursor) => `/v1/events?after=${cursor}&limit=200`);
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) expect(page.bytes).toBeLessThan(ANSWER_BYTES + 30_000);
      expect(pages.flatMap((page) => page.data.map((event) => event.changeVersion))).toEqual(oneTo(301));
    },
  );

  it(
    "a record's history of 300 changes of 48 KB: pages of at most ANSWER_BYTES, every change once, in order",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      const taskId = await insertLargeTaskEvents(tenant);
      const pages = await walk(`/v1/tasks/${taskId}/history?limit=200`, tenant.key);
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) expect(page.bytes).toBeLessThan(ANSWER_BYTES + 30_000);
      expect(pages.flatMap((page) => page.data.map((event) => event.changeVersion))).toEqual(oneTo(301));
    },
  );
});
