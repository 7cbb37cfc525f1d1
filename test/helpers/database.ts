import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect, inject } from "vitest";
import { startEmbeddedPostgres } from "../../cli/lib/embedded-postgres.ts";
import type { ClosableDatabase } from "../../db/client.ts";
import { connectNodeDatabase } from "../../db/node-client.ts";

// Direct access to the test database (the one the Worker uses), for fixtures and for checking
// what a call did or did not write. One small pool per test file, closed after the file
// (test/setup/per-file.ts).

let shared: ClosableDatabase | undefined;

export function testDatabase(): ClosableDatabase {
  shared ??= connectNodeDatabase(inject("databaseUrl"), { max: 3 });
  return shared;
}

export async function closeTestDatabase(): Promise<void> {
  const db = shared;
  shared = undefined;
  await db?.close();
}

export async function query<Row = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<Row[]> {
  return (await testDatabase().query<Row>(text, params)).rows;
}

/**
 * A new, empty database for the length of `use`, apart from the one the Worker uses: for tests
 * of the database itself (migrations) that must not disturb, or be disturbed by, other files.
 * On a server: another database there. Embedded: another PGlite (about 5 s to start), because
 * PGlite serves every connection on one session and a migration's transaction would take in the
 * statements of concurrent tests.
 */
export async function withScratchDatabase<T>(use: (url: string) => Promise<T>): Promise<T> {
  if (inject("databaseKind") === "embedded") {
    const embedded = await startEmbeddedPostgres();
    try {
      return await use(embedded.url);
    } finally {
      await embedded.stop();
    }
  }
  // Named like the harness's own, so a killed run's leftover is swept the same way.
  const name = `opsroom_test_${Date.now()}_${randomBytes(4).toString("hex")}`;
  const url = new URL(inject("databaseUrl"));
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
    url.pathname = `/${name}`;
    return await use(url.toString());
  } finally {
    await admin.query(`drop database if exists "${name}" with (force)`).finally(() => admin.end());
  }
}

/**
 * Columns that change without a write of the organisation's data: bookkeeping. A key's last use;
 * an event's publication, stamped after the response of an earlier write (so it may land between
 * two snapshots). When the app adds such a table (say rate-limit counters keyed by org_id), name
 * it in UNTRACKED_TABLES.
 */
const VOLATILE_COLUMNS: Record<string, string[]> = {
  api_keys: ["last_used_at"],
  // ...and its notifications' derivation (docs/notifications.md), after the answer too.
  events: ["published_at", "notified_at"],
  installations: ["last_used_at"],
  // A queued mail is sent (or refused and retried) after the answer that queued it.
  mail_outbox: ["status", "attempts", "next_attempt_at", "lease_until", "last_error", "sent_at"],
};
// Webhook delivery attempts are logged by the realtime room as it delivers earlier events (and
// retries them with backoff), so they too land between two snapshots; a call's own event is
// already counted under events. A deleted file's object key waits in attachment_removals until R2
// lets it go, after the answer of the delete that left it (or at the sweep): the deleted row itself
// is counted under attachments. Notifications and the follows they record are derived from a
// write's events after its answer.
const UNTRACKED_TABLES = new Set<string>(["webhook_deliveries", "attachment_removals", "notifications", "subscriptions"]);

export interface Snapshot {
  /** The organisation's change counter. */
  changeVersion: number;
  /** Events (outbox rows) of the organisation. */
  events: number;
  /** Rows of the organisation, per table that has an org_id column. */
  rows: Record<string, number>;
  /** md5 of the organisation's rows, per table (and of the organisation row): catches updates. */
  digests: Record<string, string>;
}

let tenantTables: Promise<string[]> | undefined;

/** Every table with an org_id column, found at run time so new tables are covered without edits. */
function findTenantTables(): Promise<string[]> {
  tenantTables ??= query<{ table_name: string }>(
    `select c.table_name from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and c.column_name = 'org_id' and t.table_type = 'BASE TABLE'
      order by c.table_name`,
  ).then((rows) => rows.map((r) => r.table_name).filter((name) => !UNTRACKED_TABLES.has(name)));
  return tenantTables;
}

/** Everything an organisation has in the database, reduced to counts and digests. */
export async function snapshot(orgId: string): Promise<Snapshot> {
  const tables = await findTenantTables();
  const parts = tables.map(
    (table, i) =>
      `select '${table}' as name, count(*)::int as rows,
              coalesce(md5(string_agg((to_jsonb(t) - $${i + 2}::text[])::text, ',' order by (to_jsonb(t) - $${i + 2}::text[])::text)), '') as digest
         from "${table}" t where t.org_id = $1`,
  );
  const params = [orgId, ...tables.map((table) => VOLATILE_COLUMNS[table] ?? [])];
  const [org] = await query<{ change_version: string; digest: string }>(
    "select change_version, md5(to_jsonb(o)::text) as digest from organisations o where id = $1",
    [orgId],
  );
  if (!org) throw new Error(`snapshot: no organisation ${orgId}`);
  const counted = await query<{ name: string; rows: number; digest: string }>(parts.join("\nunion all\n"), params);

  const result: Snapshot = { changeVersion: Number(org.change_version), events: 0, rows: {}, digests: { organisations: org.digest } };
  for (const { name, rows, digest } of counted) {
    result.rows[name] = rows;
    result.digests[name] = digest;
    if (name === "events") result.events = rows;
  }
  return result;
}

/** Asserts that nothing the organisation owns changed between the two snapshots. */
export function expectNoTrace(before: Snapshot, after: Snapshot): void {
  expect(after, "a refused call must leave no trace (rows, changeVersion, events)").toEqual(before);
}
