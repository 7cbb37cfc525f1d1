import { expect, it } from "vitest";
import { PRUNE_CRON } from "../../functions/sweep-plan.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { acknowledgedChangeVersions, openRoomSocket, postToRoom, runSweep, useRoom, type RoomEvent } from "../helpers/realtime.ts";
import { pollUntil } from "../helpers/wait.ts";

// Events are the records after a change, so one edit of a long description makes an event of
// 30-90 KB. Neon's SQL-over-HTTP proxy answers at most 10 MiB (507 past it; the local SQL
// endpoint does the same), so a read of hundreds of such events in one statement fails: the
// sweep's read after a realtime outage and a room's gap fill are paged by size as well as by
// count (db/statements/engine/answer-size.ts), and the sweep prunes whatever became of its publishing.
// The events are written straight into the outbox (as a long outage would leave them), large
// enough that the sweep's 1000 or the gap fill's 500 are past the proxy's limit.

useRoom();

/**
 * Events `from`..`to` of the tenant's organisation, task.updated, each carrying a description of
 * `bytes`; unpublished unless said, and dated `age` ago (a negative age: in the future, which no
 * sweep takes, so only the room's own gap fill can bring them).
 */
async function insertLargeEvents(tenant: Tenant, from: number, to: number, options: { bytes: number; age: string; published?: boolean }) {
  await query(
    `insert into events (id, org_id, change_version, type, scope, data, changes, actor, occurred_at, published_at)
     select gen_random_uuid(), $1, v, 'task.updated', 'tasks.read',
            jsonb_build_object('id', gen_random_uuid(), 'n', v, 'description', repeat('x', $4)), null,
            '{"type":"system","id":null,"name":"opsroom"}'::jsonb, now() - $5::interval, case when $6 then now() end
       from generate_series($2::bigint, $3::bigint) v`,
    [tenant.org.id, from, to, options.bytes, options.age, options.published ?? false],
  );
  await query("update organisations set change_version = greatest(change_version, $2) where id = $1", [tenant.org.id, to]);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

it(
  "after an outage, the sweep publishes 1000 events of 12 KB (12 MB, past the proxy's 10 MiB) in order, and prunes what is past retention",
  { timeout: 120_000 },
  async () => {
    const tenant = await createTenant();
    // 1..20 past the 30 days' retention, 21..1020 from the outage, none acknowledged.
    await insertLargeEvents(tenant, 1, 20, { bytes: 12_000, age: "31 days" });
    await insertLargeEvents(tenant, 21, 1020, { bytes: 12_000, age: "1 minute" });
    const socket = openRoomSocket(tenant.org.id, { apiKey: tenant.key });
    try {
      await socket.ready;
      // The cron runs the sweep every minute; here every few seconds, each one going on from the last.
      let lastSweep = 0;
      await pollUntil(
        async () => {
          if (Date.now() - lastSweep > 3_000) {
            lastSweep = Date.now();
            await runSweep();
          }
          return acknowledgedChangeVersions(tenant.org.id);
        },
        // The old ones may be published too: the minute sweep does not prune (the prune cron does, below).
        (acknowledged) => acknowledged.filter((cv) => cv > 20).length === 1000 && acknowledged.at(-1) === 1020,
        90_000,
      );
      await socket.waitForEvents(1000, 30_000);
      const received = socket.events().map((event) => event.changeVersion);
      // In order, each once, from where the room started (before the first event it had not been sent).
      expect(received.filter((cv) => cv > 20)).toEqual(range(21, 1020));
      expect(socket.events().every((event) => (event.data as { description: string }).description.length === 12_000)).toBe(true);
      // Retention prunes the old ones at the prune cron (issue 45: its own, every 6 hours), whatever the publishing had to do.
      await runSweep(PRUNE_CRON);
      const kept = await pollUntil(
        () =>
          query<{ change_version: string }>("select change_version from events where org_id = $1 and change_version <= 20", [
            tenant.org.id,
          ]),
        (rows) => rows.length === 0,
        30_000,
      );
      expect(kept).toEqual([]);
    } finally {
      socket.close();
    }
  },
);

it(
  "a room that receives an event after a gap of 600 events of 25 KB (15 MB) fetches them all from the API, in pages, and delivers every one in order",
  { timeout: 120_000 },
  async () => {
    const tenant = await createTenant();
    // The room starts before event 1 (the first unacknowledged); 1..600 are dated in the future, so
    // no sweep sends them: only the room's gap fill can.
    await insertLargeEvents(tenant, 1, 600, { bytes: 25_000, age: "-1 hour" });
    const socket = openRoomSocket(tenant.org.id, { apiKey: tenant.key });
    try {
      await socket.ready;
      const last: RoomEvent = {
        id: crypto.randomUUID(),
        type: "task.updated",
        orgId: tenant.org.id,
        changeVersion: 601,
        occurredAt: new Date().toISOString(),
        data: { id: crypto.randomUUID(), n: 601 },
        changes: null,
        actor: { type: "system", id: null, name: "opsroom" },
        batchId: null,
      };
      await query("update organisations set change_version = 601 where id = $1", [tenant.org.id]);
      const published = await postToRoom(tenant.org.id, { events: [last] });
      expect(published.status).toBe(200);
      await socket.waitForEvents(601, 60_000);
      expect(socket.events().map((event) => event.changeVersion)).toEqual(range(1, 601));
    } finally {
      socket.close();
    }
  },
);
