import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startSqlEndpoint, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { connectDatabase, DatabaseUnavailableError, type Database } from "../../db/client.ts";
import { events } from "../../db/schema/index.ts";
import { PendingAcknowledgements } from "../../db/statements/engine/acknowledgements.ts";
import { markPublished, recordPendingAcknowledgements } from "../../db/statements/engine/events.ts";
import { runWrite, type WriteStatement } from "../../db/statements/engine/sql.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { acknowledgedChangeVersions } from "../helpers/realtime.ts";

// The rooms' acknowledgements ride on the Worker's next write statement instead of a request of
// their own (db/statements/engine/acknowledgements.ts). Driven here through the Worker's own database
// handle (connectDatabase, Neon's HTTP protocol to the local SQL endpoint), on events written
// straight to the outbox, so nothing else (the Worker under test, its sweep) can record them.

let endpoint: SqlEndpoint;
let db: Database;
// A URL of this file's own: the handle's held acknowledgements are kept per database URL.
const ISOLATE_URL = `${inject("databaseUrl")}?acknowledgements-test`;

beforeAll(async () => {
  const database = new URL(inject("databaseUrl"));
  endpoint = await startSqlEndpoint({ target: { host: database.hostname, port: Number(database.port || 5432) } });
  db = connectDatabase({ url: ISOLATE_URL, localSqlEndpoint: endpoint.address });
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
});

/** `n` unpublished events after the organisation's current changeVersion; answers their changeVersions. */
async function unpublished(tenant: Tenant, n: number): Promise<number[]> {
  const rows = await query<{ change_version: string }>(
    `with bump as (update organisations set change_version = change_version + $2 where id = $1 returning change_version)
     insert into events (id, org_id, change_version, type, scope, data, actor)
     select gen_random_uuid(), $1, bump.change_version - $2 + i, 'task.updated', 'tasks.read', jsonb_build_object('id', gen_random_uuid()), null
       from bump, generate_series(1, $2) as i
     returning change_version`,
    [tenant.org.id, n],
  );
  return rows.map((row) => Number(row.change_version)).sort((a, b) => a - b);
}

const recorded = (tenant: Tenant) => acknowledgedChangeVersions(tenant.org.id);

/** The least write statement runWrite takes: it changes nothing of its own. */
const write = (columns = sql`1 as one`): WriteStatement => ({
  ctes: sql`nothing as (select 1)`,
  columns,
  succeeded: sql`true`,
  answer: sql`null`,
  created: sql`false`,
});

describe("acknowledgements recorded with the next write", () => {
  it("the Worker's handle holds an acknowledgement, and its next write statement records it: no request of its own", async () => {
    const tenant = await createTenant();
    const versions = await unpublished(tenant, 3);
    const before = db.queryCount;
    await markPublished(db, tenant.org.id, versions.slice(0, 2));
    expect(db.queryCount, "no request to record it").toBe(before);
    expect(db.acknowledgements!.size).toBe(2);
    expect(await recorded(tenant)).toEqual([]);

    await runWrite(db, write());
    expect(db.queryCount - before, "the write's one request carried it").toBe(1);
    expect(db.acknowledgements!.size).toBe(0);
    expect(await recorded(tenant)).toEqual(versions.slice(0, 2));

    // `now` (the sweep's own progress) records at once.
    await markPublished(db, tenant.org.id, versions.slice(2), { now: true });
    expect(db.acknowledgements!.size).toBe(0);
    expect(await recorded(tenant)).toEqual(versions);
  });

  it("a write statement that fails drops them (the sweep sends those events again), so one bad statement cannot fail every later write", async () => {
    const tenant = await createTenant();
    const versions = await unpublished(tenant, 2);
    await markPublished(db, tenant.org.id, versions);
    await expect(runWrite(db, write(sql`1 / 0 as boom`))).rejects.toThrow(/division by zero/);
    expect(db.acknowledgements!.size).toBe(0);
    expect(await recorded(tenant)).toEqual([]);
    // The next write carries nothing of them, and succeeds.
    await runWrite(db, write());
    expect(await recorded(tenant)).toEqual([]);
  });

  it("a write that could not reach the database puts them back; the sweep's recordPendingAcknowledgements then records them", async () => {
    const tenant = await createTenant();
    const versions = await unpublished(tenant, 2);
    // The same database URL (so the same held acknowledgements), through an endpoint nobody serves.
    const unreachable = connectDatabase({ url: ISOLATE_URL, localSqlEndpoint: "127.0.0.1:1" });
    await markPublished(unreachable, tenant.org.id, versions);
    await expect(runWrite(unreachable, write())).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(unreachable.acknowledgements!.size, "put back").toBe(2);
    // neonConfig's endpoint is the isolate's: point it back at the endpoint that answers.
    db = connectDatabase({ url: ISOLATE_URL, localSqlEndpoint: endpoint.address });
    expect(await recorded(tenant)).toEqual([]);

    await recordPendingAcknowledgements(db);
    expect(db.acknowledgements!.size).toBe(0);
    expect(await recorded(tenant)).toEqual(versions);
    // With nothing pending, it sends nothing.
    const before = db.queryCount;
    await recordPendingAcknowledgements(db);
    expect(db.queryCount).toBe(before);
  });

  it("an event already recorded, or gone (pruned), is passed over", async () => {
    const tenant = await createTenant();
    const versions = await unpublished(tenant, 2);
    await markPublished(db, tenant.org.id, [versions[0]!], { now: true });
    const [first] = await query<{ published_at: Date }>("select published_at from events where org_id = $1 and change_version = $2", [
      tenant.org.id,
      versions[0],
    ]);
    await markPublished(db, tenant.org.id, [...versions, versions[1]! + 1000]);
    await runWrite(db, write());
    expect(await recorded(tenant)).toEqual(versions);
    const [again] = await query<{ published_at: Date }>("select published_at from events where org_id = $1 and change_version = $2", [
      tenant.org.id,
      versions[0],
    ]);
    expect(again!.published_at, "the first recording stands").toEqual(first!.published_at);
  });

  it.runIf(inject("databaseKind") === "server")(
    "a write never waits on an event row another statement holds: it skips it, and records the rest",
    async () => {
      const tenant = await createTenant();
      const versions = await unpublished(tenant, 2);
      const holder = new pg.Client({ connectionString: inject("databaseUrl") });
      await holder.connect();
      try {
        await holder.query("begin");
        await holder.query("select 1 from events where org_id = $1 and change_version = $2 for update", [tenant.org.id, versions[0]]);
        await markPublished(db, tenant.org.id, versions);
        const started = Date.now();
        await runWrite(db, write());
        expect(Date.now() - started, "not held up by the lock").toBeLessThan(5_000);
        expect(await recorded(tenant)).toEqual([versions[1]]);
      } finally {
        await holder.query("rollback").catch(() => {});
        await holder.end();
      }
      // The one skipped is the sweep's: unrecorded, it is sent again and recorded then.
      expect(db.acknowledgements!.size).toBe(0);
    },
  );

  it("records only whole changeVersions of the room's answer", async () => {
    const tenant = await createTenant();
    const versions = await unpublished(tenant, 1);
    await markPublished(db, tenant.org.id, [1.5, Number.NaN, "1", null, ...versions, 2 ** 60]);
    expect(db.acknowledgements!.size).toBe(1);
    await runWrite(db, write());
    expect(await recorded(tenant)).toEqual(versions);
  });

  it("holds at most PendingAcknowledgements.HELD, dropping the oldest (the sweep sends those again)", () => {
    const pending = new PendingAcknowledgements();
    const orgId = "00000000-0000-0000-0000-000000000001";
    pending.add(
      orgId,
      Array.from({ length: PendingAcknowledgements.HELD + 10 }, (_, i) => i + 1),
    );
    expect(pending.size).toBe(PendingAcknowledgements.HELD);
    const taken = pending.take(events);
    expect(taken).not.toBeNull();
    expect(pending.size).toBe(0);
    expect(pending.take(events)).toBeNull();
    taken!.restore();
    expect(pending.size).toBe(PendingAcknowledgements.HELD);
  });
});
