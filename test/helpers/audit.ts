import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, inject } from "vitest";
import type { AuditAction, AuditEntry } from "../../domain/audit.ts";
import { api, testClientAddress } from "./api.ts";
import { query } from "./database.ts";

// The audit log in tests: its rows as stored, and the checks every audited action shares.

export interface AuditRow {
  id: string;
  sequence: string;
  action: AuditAction;
  actor: AuditEntry["actor"];
  target: AuditEntry["target"];
  changes: AuditEntry["changes"];
  client_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  /** The transaction that wrote the row: equal to the change's own when both were one commit. */
  xmin: string;
}

/** An organisation's entries, oldest first. */
export const auditRows = (orgId: string) =>
  query<AuditRow>(
    `select id, sequence, action, actor, target, changes, client_address, user_agent, request_id, xmin::text as xmin
       from audit_entries where org_id = $1 order by sequence`,
    [orgId],
  );

/** The transaction that last wrote a row (`table` where id = `id`). */
export async function writerOf(table: string, id: string, idColumn = "id"): Promise<string> {
  const [row] = await query<{ xmin: string }>(`select xmin::text as xmin from "${table}" where ${idColumn} = $1`, [id]);
  if (!row) throw new Error(`no ${table} row ${id}`);
  return row.xmin;
}

/**
 * Runs `act` and asserts it appended exactly one entry to `orgId`'s log, with `action`, made from
 * this test's client address; answers the entry.
 */
export async function expectOneEntry(orgId: string, action: AuditAction, act: () => Promise<unknown>): Promise<AuditRow> {
  const before = await auditRows(orgId);
  await act();
  const after = await auditRows(orgId);
  const added = after.slice(before.length);
  expect(
    added.map((row) => row.action),
    `one ${action} entry`,
  ).toEqual([action]);
  return added[0]!;
}

/** The entry was made by this test's request (its address, user agent and a request id). */
export function expectFromThisRequest(entry: AuditRow): void {
  expect(entry.client_address).toBe(testClientAddress());
  expect(entry.user_agent).toBeTruthy();
  expect(entry.request_id).toMatch(/\S/);
}

/** GET /v1/audit-log with a key or cookie. */
export const readAuditLog = (path: string, auth: { key?: string; cookie?: string }) =>
  api(path, auth.key ? { key: auth.key } : { headers: { cookie: auth.cookie! } });

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** `opsroom audit verify --org <orgId> --json`, as an operator runs it: its exit code and output. */
export function verify(orgId: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["cli/bin.js", "audit", "verify", "--org", orgId, "--json"],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: inject("databaseUrl") }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
