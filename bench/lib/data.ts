import { startSqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import type { Database } from "../../db/client.ts";
import { connectNodeDatabase } from "../../db/node-client.ts";
import { createOrganisation } from "../../db/statements/organisations.ts";
import { hashApiKey } from "../../domain/crypto/api-keys.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { createApiKey } from "../../services/api-keys.ts";
import { createTestDatabase } from "../../test/setup/test-database.ts";
import type { ReplayOrg } from "./replay.ts";

// Bench data, written straight into the database (like the tests' insert* fixtures: no events,
// no changeVersion), so 100 k tasks load in seconds. What the API then measures is unaffected.

export interface BenchOrg {
  orgId: string;
  key: string;
  keyHash: string;
  people: string[];
  projects: string[];
  /** Tasks loaded so far (bulk), the next one's sequence number. */
  tasks: number;
}

/** No rate limit worth the name: the bench measures the API, not the limiter's refusals. */
const BENCH_RATE_LIMIT = 1_000_000_000;

export async function createBenchOrg(db: Database, name: string, size = { people: 20, projects: 10 }): Promise<BenchOrg> {
  const org = await createOrganisation(db, { name });
  const { key } = await createApiKey({
    ctx: { db },
    input: { orgId: org.id, application: "bench", scopes: ALL_SCOPES, rateLimit: BENCH_RATE_LIMIT },
  });
  const people = Array.from({ length: size.people }, () => uuidv7());
  const projects = Array.from({ length: size.projects }, () => uuidv7());
  await db.query(
    `insert into personnel (id, org_id, name, email)
     select p.id, $1::uuid, 'Person ' || p.n, 'person' || p.n || '@bench.example'
       from unnest($2::uuid[]) with ordinality as p(id, n)`,
    [org.id, people],
  );
  await db.query(
    `insert into projects (id, org_id, name, budget, start_date, end_date)
     select p.id, $1::uuid, 'Project ' || p.n, 10000, date '2026-01-01', date '2026-12-31'
       from unnest($2::uuid[]) with ordinality as p(id, n)`,
    [org.id, projects],
  );
  return { orgId: org.id, key, keyHash: hashApiKey(key), people, projects, tasks: 0 };
}

/** The organisation the app alone replays its calls in (bench/lib/replay.ts): 200 tasks, one of them, a project and a person. */
export async function replayOrg(db: Database, name: string): Promise<ReplayOrg> {
  const org = await createBenchOrg(db, name);
  await growTasks(db, org, 200);
  const [taskId] = await someTasks(db, org, 1);
  return { key: org.key, taskId: taskId!, projectId: org.projects[0]!, personId: org.people[0]! };
}

/**
 * Adds tasks up to `total` in the organisation: spread evenly over projects and people, statuses
 * and priorities independent of the project, created 10 ms apart in the past (so keyset pages are
 * realistic and tasks the API creates later sort last). Analyzes afterwards, as autovacuum would.
 */
export async function growTasks(db: Database, org: BenchOrg, total: number): Promise<void> {
  const batch = 20_000;
  while (org.tasks < total) {
    const from = org.tasks;
    const to = Math.min(total, from + batch) - 1;
    await db.query(
      `insert into tasks (id, org_id, project_id, assignee_id, title, description, status, priority, due_date, created_at, updated_at)
       select gen_random_uuid(), $1::uuid,
              ($2::uuid[])[1 + i % cardinality($2::uuid[])],
              ($3::uuid[])[1 + (i / 7) % cardinality($3::uuid[])],
              'Bench task ' || i,
              -- The same 25 tasks match ?q=scaffold at every size, so a search's cost is compared alike.
              case when i < 25 then 'Check the scaffold tower before use' end,
              (array['todo','in_progress','blocked','done','cancelled'])[1 + (i / 10) % 5],
              (array['low','medium','high','urgent'])[1 + (i / 50) % 4],
              date '2026-01-01' + (i % 365),
              timestamptz '2025-01-01 00:00:00Z' + i * interval '10 ms',
              timestamptz '2025-01-01 00:00:00Z' + i * interval '10 ms'
         from generate_series($4::int, $5::int) i`,
      [org.orgId, org.projects, org.people, from, to],
    );
    org.tasks = to + 1;
  }
  await db.query("analyze tasks");
}

/** One task of the organisation (the first of the first project), to read and patch. */
export async function someTasks(db: Database, org: BenchOrg, count: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    "select id from tasks where org_id = $1 and project_id = $2 order by created_at, id limit $3",
    [org.orgId, org.projects[0], count],
  );
  return rows.map((r) => r.id);
}

/**
 * A fresh database (on DATABASE_URL's server, or an in-memory PGlite), the local SQL endpoint in
 * front of it (as Neon's proxy is in front of Neon), and a Node client: what a bench runs against,
 * closed and dropped after `work`.
 */
export async function withBenchDatabase<T>(
  work: (stack: { url: string; sqlEndpoint: string; db: ReturnType<typeof connectNodeDatabase> }) => Promise<T>,
): Promise<T> {
  const database = await createTestDatabase(process.env.DATABASE_URL);
  await database.ready;
  const sqlEndpoint = await startSqlEndpoint({ target: database.target });
  const db = connectNodeDatabase(database.url, { max: 2 });
  try {
    return await work({ url: database.url, sqlEndpoint: sqlEndpoint.address, db });
  } finally {
    await db.close();
    await sqlEndpoint.close();
    await database.dispose();
  }
}
