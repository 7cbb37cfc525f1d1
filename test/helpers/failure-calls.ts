import { expect, inject } from "vitest";
import { createOrganisation } from "../../db/statements/organisations.ts";
import { ALL_SCOPES, expandScopes } from "../../domain/scopes.ts";
import { ERROR_STATUS } from "../../functions/http/errors.ts";
import { createApiKey } from "../../services/api-keys.ts";
import type { FailureStack } from "./failure-stack.ts";
import { unique } from "./resources.ts";

// Calls to a failure stack's Worker (test/helpers/failure-stack.ts) and what a write of an
// organisation left in its database: for the files that break the database
// (test/protection/database-failures.test.ts, test/protection/neon-errors.test.ts).

export interface StackResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface StackTenant {
  orgId: string;
  key: string;
}

/** Waits until no other session of the failure database is inside a statement or a transaction. */
async function waitUntilQuiet(db: FailureStack["db"]): Promise<void> {
  let busy: unknown[] = [];
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    ({ rows: busy } = await db.query(
      `select pid, state, query from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and state in ('active', 'idle in transaction', 'idle in transaction (aborted)')`,
    ));
    if (busy.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`sessions of the failure database still busy after 10 s: ${JSON.stringify(busy)}`);
}

/**
 * The calls of one file's stack (read when called: the stack starts in beforeAll). Every key
 * made is added to `keysUsed`, for the check that none ever reaches the Worker's console.
 */
export function stackCalls(stackOf: () => FailureStack, keysUsed: string[] = []) {
  async function call(
    path: string,
    options: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<StackResponse> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(new URL(path, stackOf().workerUrl), {
      method: options.method ?? (options.body === undefined ? "GET" : "POST"),
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {
      // left null: the envelope check fails and shows the text
    }
    return { status: response.status, headers: response.headers, body, text };
  }

  async function tenant(rateLimit = 10_000): Promise<StackTenant> {
    const { db } = stackOf();
    const org = await createOrganisation(db, { name: `Failure org ${unique()}` });
    const { key } = await createApiKey({
      ctx: { db },
      input: { orgId: org.id, application: `failures-${unique()}`, scopes: expandScopes(ALL_SCOPES), rateLimit },
    });
    keysUsed.push(key);
    // One call, so the key's RateLimiter has read its limit while the database was there.
    expect((await call("/v1", { key })).status).toBe(200);
    return { orgId: org.id, key };
  }

  /**
   * Everything a write of the organisation leaves, read in ONE statement, so a commit can never fall
   * between two of its parts: counts per table, changeVersion, events, remembered Idempotency-Keys,
   * and a digest of the tasks (an update changes no count).
   */
  async function state(orgId: string) {
    const { rows } = await stackOf().db.query<Record<string, number | string>>(
      `select (select change_version from organisations where id = $1)::int as "changeVersion",
              (select count(*) from events where org_id = $1)::int as events,
              (select count(*) from projects where org_id = $1)::int as projects,
              (select count(*) from tasks where org_id = $1)::int as tasks,
              (select count(*) from idempotency_keys where org_id = $1)::int as "idempotencyKeys",
              (select coalesce(md5(string_agg(t::text, ',' order by t.id)), '') from tasks t where t.org_id = $1) as "tasksDigest",
              (select coalesce(json_agg(json_build_object('type', e.type, 'changeVersion', e.change_version, 'id', e.data->>'id') order by e.change_version), '[]')
                 from events e where e.org_id = $1)::text as "eventList"`,
      [orgId],
    );
    return rows[0]!;
  }

  /**
   * The state once nothing of the Worker's is still running: a statement cut off from its client may
   * still be finishing on the server. On a server that is read from pg_stat_activity (no other session of
   * this database inside a statement or a transaction); the embedded database runs one statement at a
   * time, so a read queued behind the cut one already sees its outcome.
   */
  async function settled(orgId: string) {
    if (inject("databaseKind") === "server") await waitUntilQuiet(stackOf().db);
    return state(orgId);
  }

  return { call, tenant, state, settled };
}

/** An error answer in the envelope, with this status and code, its request id that of the answer, and no data. */
export function expectErrorAnswer(response: StackResponse, status: 500 | 503, code: "internal_error" | "unavailable") {
  const where = `${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, where).toBe(status);
  expect(response.body, where).toMatchObject({ success: false, version: "v1", error: { code } });
  expect(ERROR_STATUS[code]).toBe(status);
  expect(response.body.error.requestId).toBe(response.headers.get("x-request-id"));
  expect(response.body).not.toHaveProperty("data");
}

export const expectUnavailable = (response: StackResponse) => expectErrorAnswer(response, 503, "unavailable");
