import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { STATEMENT_TIMEOUT_MS } from "../../db/client.ts";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { expectWritesNotHeld, insertTasks, timedBeside, waitsOfWritesDuring, type TaskPlace } from "./write-waits.ts";

// One member must not be able to stall an organisation's writes (issue 31, finding 1). A
// dependency's cycle check runs under the organisation's write lock; on the probe's graph (four
// layers of 100 tasks, each task blocked by the whole next layer: 30 000 links) it walked every
// path below the blocker, about a second a dependency, and a batch of them held every other write
// of the organisation for seconds. Here: what a write meanwhile waits, the budget of links a
// request's checks share, and the database's own timeout.

/** The probe's graph: layers of 100 tasks, the first layer on top, each task blocked by the whole next layer. */
async function probeGraph(tenant: Tenant, at: TaskPlace): Promise<string[][]> {
  const layers: string[][] = [];
  for (let n = 0; n < 4; n++) layers.unshift(await insertTasks(tenant, at, 100, layers[0] ?? []));
  return layers;
}

const addDependency = (tenant: Tenant, id: string, blockedBy: string) =>
  api(`/v1/tasks/${id}/dependencies`, { key: tenant.key, body: { blockedBy } });
const dependencyOperation = (id: string, blockedBy: string) => ({
  method: "POST",
  path: `/v1/tasks/${id}/dependencies`,
  body: { blockedBy },
});

/** An organisation holding the probe's graph (`layers`, the top first), `count` tasks outside it, and one more task (`other`). */
async function probeOrganisation(count: number) {
  const tenant = await createTenant({ rateLimit: 100_000 });
  const { projectId, assigneeId } = await tenant.insertTask();
  const at = { projectId, assigneeId };
  const layers = await probeGraph(tenant, at);
  const [other] = await insertTasks(tenant, at, 1);
  return { tenant, layers, top: layers[0]!, tasks: await insertTasks(tenant, at, count), other: other! };
}

describe("adding dependencies in a large graph", () => {
  it("one by one, each blocked by a task at the top of the probe's graph: writes to another task meanwhile are not held up", async () => {
    const { tenant, top, tasks, other } = await probeOrganisation(10);
    const calls = tasks.map((task) => async () => {
      expect(expectSuccess(await addDependency(tenant, task, top[0]!)).data.blockedBy).toEqual([top[0]]);
    });
    expectWritesNotHeld((await timedBeside("a dependency under the graph's top", tenant, other, calls)).waits);
  }, 120_000);

  it("in batches of five: each commits, and writes to another task meanwhile are not held up", async () => {
    // (The probe sent ten: 7.3 s. Every statement of a batch costs the database a few ms whatever
    // it does, so five keep the embedded PGlite, the slower of the two, well within the 100 ms.)
    const { tenant, top, tasks, other } = await probeOrganisation(20);
    const calls = [0, 5, 10, 15].map((n) => async () => {
      const operations = tasks.slice(n, n + 5).map((task, i) => dependencyOperation(task, top[i]!));
      expect(expectSuccess(await api("/v1/batch", { key: tenant.key, body: { operations } })).data).toHaveLength(5);
    });
    expectWritesNotHeld((await timedBeside("a batch of 5 under the graph's top", tenant, other, calls)).waits);
  }, 120_000);

  it("cycles through the probe's graph are refused with their paths, each task blocked by the next, and writes meanwhile are not held up", async () => {
    const { tenant, layers, other } = await probeOrganisation(0);
    const [top, second, third] = layers;
    const before = await snapshot(tenant.org.id);
    // third[i] would wait for top[j], which waits for every task of the second layer, each of which waits for third[i].
    const calls = [0, 1, 2, 3, 4].map((i) => async () => {
      const refused = expectError(await addDependency(tenant, third![i]!, top![9 - i]!), 409, "dependency_cycle", { field: "blockedBy" });
      const path = refused.error.path as string[];
      expect(path).toHaveLength(4);
      expect([path[0], path[1], path[3]]).toEqual([third![i], top![9 - i], third![i]]);
      expect(second).toContain(path[2]);
    });
    const { waits, renames } = await timedBeside("a cycle refused through the graph", tenant, other, calls);
    expectWritesNotHeld(waits);
    // Nothing written but the renames of the other task.
    expect(await query("select id from tasks where org_id = $1 and version > 1", [tenant.org.id])).toEqual([{ id: other }]);
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(before.changeVersion + renames);
  }, 60_000);
});

describe("the links a request's cycle checks may follow (10 000)", () => {
  // A blocker waiting for 100 tasks, each waiting for the same 50; two tasks to give it, both
  // blocking the same 100 tasks, for each of which `lower` tasks wait. The search widens the
  // smaller side: 100 links from the task given the blocker to the tasks it blocks, 100 from the
  // blocker to those it waits for, then 100 x `lower` to the tasks waiting below, which block
  // nothing: no cycle, after 200 + 100 x `lower` links.
  async function arrange(lower: number) {
    const tenant = await createTenant({ rateLimit: 100_000 });
    const { projectId, assigneeId } = await tenant.insertTask();
    const at = { projectId, assigneeId };
    const [blocker] = await insertTasks(tenant, at, 1, await insertTasks(tenant, at, 100, await insertTasks(tenant, at, 50)));
    const given = await insertTasks(tenant, at, 2);
    await insertTasks(tenant, at, lower, await insertTasks(tenant, at, 100, given));
    const [other] = await insertTasks(tenant, at, 1);
    return { tenant, blocker: blocker!, given, other: other! };
  }

  it("a check that cannot decide within them is 409 conflict on blockedBy, and nothing changes", async () => {
    // 100 + 100 + 100 x 100: more than 10 000 links.
    const { tenant, blocker, given } = await arrange(100);
    const before = await snapshot(tenant.org.id);
    expectError(await addDependency(tenant, given[0]!, blocker), 409, "conflict", { field: "blockedBy" });
    expectNoTrace(before, await snapshot(tenant.org.id));
  }, 60_000);

  it("a batch's checks share them: two checks of 5 200 links each pass alone, together the second is refused, and writes meanwhile are not held up", async () => {
    const { tenant, blocker, given, other } = await arrange(50);
    const before = await snapshot(tenant.org.id);
    const operations = Array.from({ length: 10 }, (_, i) => dependencyOperation(given[i % 2]!, blocker));
    const { waits, answer, renames } = await waitsOfWritesDuring(tenant, other, () =>
      api("/v1/batch", { key: tenant.key, body: { operations } }),
    );
    expectError(answer, 409, "conflict", { field: "blockedBy", operation: 1 });
    expectWritesNotHeld(waits);
    // Only the renames of the other task were written.
    expect(await query("select id from tasks where org_id = $1 and version > 1", [tenant.org.id])).toEqual([{ id: other }]);
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(before.changeVersion + renames);
    for (const task of given) expectSuccess(await addDependency(tenant, task, blocker));
  }, 60_000);
});

describe("the database gives up when the Worker has", () => {
  it(`every session of the database starts with statement_timeout ${STATEMENT_TIMEOUT_MS / 1000}s, the time the Worker waits for a statement`, async () => {
    const [setting] = await query<{ setconfig: string[] }>(
      "select setconfig from pg_db_role_setting where setdatabase = (select oid from pg_database where datname = current_database()) and setrole = 0",
    );
    expect(setting?.setconfig).toContain(`statement_timeout=${STATEMENT_TIMEOUT_MS / 1000}s`);
    // On a server, a new session shows it. (PGlite is one session, started before the migrations,
    // and has no timers: there the setting is kept but never applies.)
    if (inject("databaseKind") === "server") {
      const client = new pg.Client({ connectionString: inject("databaseUrl") });
      await client.connect();
      try {
        expect((await client.query("show statement_timeout")).rows[0].statement_timeout).toBe(`${STATEMENT_TIMEOUT_MS / 1000}s`);
      } finally {
        await client.end();
      }
    }
  });
});
