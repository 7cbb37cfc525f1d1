import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { startSqlEndpoint, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";

// The audit export under the subrequest cap (issue 45 row 2; docs/deployment.md "Limits"). It reads
// a page of 500 entries a statement, each a subrequest; workerd counts none, Workers cap them (50
// on Free) and throw past the cap, which would cut the NDJSON stream after its 200. This file's
// Worker enforces the Free plan's 50 (MODEL_WORKERS_LIMITS, SUBREQUESTS_PER_INVOCATION=50): an
// export of more entries than one invocation can read must stop where it said before answering
// (Link rel="next"), and the next export, from that cursor, carries on, with nothing lost or repeated.

const ENTRIES = 10_700;
let sqlEndpoint: SqlEndpoint;
let worker: TestWorker;

beforeAll(async () => {
  const database = new URL(inject("databaseUrl"));
  sqlEndpoint = await startSqlEndpoint({ target: { host: database.hostname, port: Number(database.port || 5432) } });
  worker = await startTestWorker({
    DATABASE_URL: inject("databaseUrl"),
    LOCAL_SQL_ENDPOINT: sqlEndpoint.address,
    MODEL_WORKERS_LIMITS: "true",
    SUBREQUESTS_PER_INVOCATION: "50",
  });
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await sqlEndpoint?.close();
}, 60_000);

it(
  "an export longer than one invocation's subrequests: it says where the rest starts, and the rest follows",
  { timeout: 120_000 },
  async () => {
    const tenant = await createTenant({ scopes: ["audit.read"] });
    await query(
      `insert into audit_entries (id, org_id, sequence, occurred_at, actor, action, target, previous_hash, hash)
     select gen_random_uuid(), $1, 1000 + g, now(), '{"type":"system"}'::jsonb, 'api_key.created',
            jsonb_build_object('type', 'api_key', 'id', gen_random_uuid()::text, 'name', 'Key ' || g), 'x', 'x'
       from generate_series(1, ${ENTRIES}) g`,
      [tenant.org.id],
    );
    const sequences: number[] = [];
    let url: string | null = `${worker.url}/v1/audit-log/export`;
    let exports = 0;
    while (url) {
      const response: Response = await fetch(url, { headers: { authorization: `Bearer ${tenant.key}` } });
      expect(response.status).toBe(200);
      const lines = (await response.text()).trimEnd().split("\n");
      // Every line is a whole entry: the stream was not cut.
      sequences.push(...lines.map((line: string) => (JSON.parse(line) as { sequence: number }).sequence));
      const next: string | null = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1] ?? null;
      url = next && new URL(next, worker.url).href;
      exports++;
    }
    expect(exports).toBeGreaterThan(1);
    const stored = await query<{ sequence: string }>("select sequence from audit_entries where org_id = $1 order by sequence desc", [
      tenant.org.id,
    ]);
    expect(stored.length).toBeGreaterThan(ENTRIES);
    expect(sequences).toEqual(stored.map((row) => Number(row.sequence)));
  },
);
