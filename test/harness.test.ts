import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { hashApiKey, isWellFormedApiKey } from "../domain/crypto/api-keys.ts";
import { uuidv7 } from "../domain/ids.ts";
import { api, workerUrl } from "./helpers/api.ts";
import { expectNoTrace, query, snapshot } from "./helpers/database.ts";
import { createTenant } from "./helpers/fixtures.ts";
import { connectToRoom, withRoom } from "./helpers/realtime.ts";

// The harness itself: the Worker answers over HTTP, fixtures land in the database the Worker
// uses, and the no-trace check really notices a trace (else every refusal test would pass vacuously).

describe("test harness", () => {
  it("reaches the Worker over HTTP and gets JSON back", async () => {
    expect(workerUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await api("/v1");
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(500);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(response.body).not.toBeNull();
  });

  it("makes a tenant: an organisation and a key stored only as its hash", async () => {
    const tenant = await createTenant({ scopes: ["tasks.manage"] });
    expect(isWellFormedApiKey(tenant.key)).toBe(true);
    expect(tenant.scopes).toEqual(["tasks.read", "tasks.manage"]);
    const rows = await query<{ key_hash: string; scopes: string[] }>(
      "select key_hash, scopes from api_keys where id = $1 and org_id = $2",
      [tenant.keyId, tenant.org.id],
    );
    expect(rows).toEqual([{ key_hash: hashApiKey(tenant.key), scopes: ["tasks.read", "tasks.manage"] }]);
  });

  it("inserts records with the fields it was given", async () => {
    const tenant = await createTenant();
    const task = await tenant.insertTask({ dueDate: "2026-03-31", priority: "high" });
    expect(task).toMatchObject({ orgId: tenant.org.id, dueDate: "2026-03-31", priority: "high", status: "todo" });
    const milestone = await tenant.insertMilestone(task.projectId, { dueDate: "2026-02-28" });
    expect(milestone).toMatchObject({ projectId: task.projectId, dueDate: "2026-02-28", status: "open" });
  });

  it("snapshot notices a new row, a changed row and a changeVersion bump, not key bookkeeping", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const s0 = await snapshot(tenant.org.id);
    expect(s0).toMatchObject({ changeVersion: 0, events: 0, rows: { projects: 1, api_keys: 1, tasks: 0 } });

    await query("update api_keys set last_used_at = now() where id = $1", [tenant.keyId]);
    expectNoTrace(s0, await snapshot(tenant.org.id));

    await query("update projects set name = 'Renamed' where id = $1", [project.id]);
    const s1 = await snapshot(tenant.org.id);
    expect(s1.digests.projects).not.toBe(s0.digests.projects);
    expect(s1.rows).toEqual(s0.rows);

    await tenant.insertPerson();
    const s2 = await snapshot(tenant.org.id);
    expect(s2.rows.personnel).toBe(1);

    await query("update organisations set change_version = change_version + 1 where id = $1", [tenant.org.id]);
    expect((await snapshot(tenant.org.id)).changeVersion).toBe(1);
  });

  it("runs the real realtime server: a socket to the room receives what the Worker publishes", () =>
    withRoom(async () => {
      const tenant = await createTenant({ scopes: ["projects.manage"] });
      const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
      const response = await api("/v1/projects", {
        key: tenant.key,
        body: { name: "Harness check", budget: 0, startDate: "2026-01-01", endDate: "2026-01-31" },
      });
      expect(response.status, response.text).toBe(201);
      const events = await socket.waitForEvents(1);
      expect(events).toEqual([expect.objectContaining({ type: "project.created", orgId: tenant.org.id, changeVersion: 1 })]);
    }));

  it("serves concurrent connections as separate sessions (a transaction never takes in another's statements)", async () => {
    // Guards the embedded PGlite server, which runs every connection on one session.
    const tenant = await createTenant();
    const writers = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
    const rollbacks = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
    try {
      const insert = (client: pg.Pool | pg.PoolClient, tag: string) =>
        client.query("insert into personnel (id, org_id, name, email) values ($1, $2, $3, $4) returning email", [
          uuidv7(),
          tenant.org.id,
          tag,
          `${tag}@example.test`,
        ]);
      const write = async (lane: string) => {
        for (let i = 0; i < 25; i++) {
          const { rows } = await insert(writers, `kept-${lane}-${i}`);
          expect(rows[0]?.email).toBe(`kept-${lane}-${i}@example.test`);
        }
      };
      const rollBack = async (lane: string) => {
        for (let i = 0; i < 10; i++) {
          const client = await rollbacks.connect();
          try {
            await client.query("begin");
            await insert(client, `dropped-${lane}-${i}`);
            await client.query("rollback");
          } finally {
            client.release();
          }
        }
      };
      await Promise.all([write("a"), write("b"), rollBack("a"), rollBack("b")]);
      const rows = await query<{ name: string }>("select name from personnel where org_id = $1", [tenant.org.id]);
      expect(rows.filter((r) => r.name.startsWith("kept-"))).toHaveLength(50);
      expect(rows.filter((r) => r.name.startsWith("dropped-"))).toHaveLength(0);
    } finally {
      await Promise.all([writers.end(), rollbacks.end()]);
    }
  });

  it("keeps organisations apart in snapshots", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const before = await snapshot(a.org.id);
    await b.insertTask();
    expectNoTrace(before, await snapshot(a.org.id));
  });
});
