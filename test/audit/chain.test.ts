import { describe, expect, it } from "vitest";
import { pruneAuditEntries } from "../../db/statements/audit-log.ts";
import { expectSuccess } from "../helpers/api.ts";
import { auditRows, verify } from "../helpers/audit.ts";
import { query, testDatabase } from "../helpers/database.ts";
import { asPerson, signUp } from "../helpers/people.ts";

// The chain: each entry's hash covers the one before it and its own content, appended in one
// order per organisation even under concurrent writes; `opsroom audit verify` finds an edit, a gap
// and a missing newest entry; retention prunes only the oldest end.

/** An organisation with `n` keys made at once by its owner: n + 1 entries (the sign-up first). */
async function busyOrganisation(n: number) {
  const owner = await signUp();
  await Promise.all(
    Array.from({ length: n }, async (_, i) =>
      expectSuccess(await asPerson(owner.cookie, "/v1/settings/api-keys", { body: { name: `K${i}`, scopes: ["tasks.read"] } }), 201),
    ),
  );
  return owner;
}

describe("the audit chain", () => {
  it("concurrent appends take one order: sequences 1..n, each previousHash the hash before; verify passes", async () => {
    const owner = await busyOrganisation(12);
    const rows = await query<{ sequence: string; previous_hash: string; hash: string }>(
      "select sequence, previous_hash, hash from audit_entries where org_id = $1 order by sequence",
      [owner.orgId],
    );
    expect(rows.map((r) => Number(r.sequence))).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(rows[0]!.previous_hash).toBe("0".repeat(64));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.previous_hash).toBe(rows[i - 1]!.hash);
    const run = await verify(owner.orgId);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: true,
      entries: 13,
      firstSequence: 1,
      lastSequence: 13,
      headSequence: 13,
      firstBad: null,
    });
  }, 120_000);

  it("fails, naming the entry, after a row is edited by hand", async () => {
    const owner = await busyOrganisation(4);
    const [, , third] = await auditRows(owner.orgId);
    await query(`update audit_entries set target = jsonb_set(target, '{name}', '"someone else"') where id = $1`, [third!.id]);
    const run = await verify(owner.orgId);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`entry 3 (${third!.id})`);
    expect(run.stderr).toMatch(/changed after it was written/);
  }, 120_000);

  it("fails after a row is deleted from the middle, and after the newest is deleted", async () => {
    const owner = await busyOrganisation(4);
    const rows = await auditRows(owner.orgId);
    await query("delete from audit_entries where id = $1", [rows[2]!.id]);
    const gap = await verify(owner.orgId);
    expect(gap.code).toBe(1);
    expect(gap.stderr).toMatch(/entry 4 .*entries 3 to 3 are missing/);
    const other = await busyOrganisation(2);
    const last = (await auditRows(other.orgId)).at(-1)!;
    await query("delete from audit_entries where id = $1", [last.id]);
    const tail = await verify(other.orgId);
    expect(tail.code).toBe(1);
    expect(tail.stderr).toMatch(/the newest entries, 3 to 3, are missing/);
  }, 120_000);

  it("retention prunes only entries older than the first young one; what is kept still verifies", async () => {
    const owner = await busyOrganisation(4);
    const rows = await auditRows(owner.orgId);
    // Entries 1 and 2 are old; so is 4, but 3 is young, so 4 stays (retention is decided by time once, then by sequence).
    await query("update audit_entries set occurred_at = now() - interval '400 days' where id = any($1::uuid[])", [
      [rows[0]!.id, rows[1]!.id, rows[3]!.id],
    ]);
    const other = await busyOrganisation(1);
    const otherBefore = await auditRows(other.orgId);
    await pruneAuditEntries(testDatabase(), 365 * 86_400);
    expect((await auditRows(owner.orgId)).map((r) => Number(r.sequence))).toEqual([3, 4, 5]);
    expect(await auditRows(other.orgId)).toEqual(otherBefore);
  }, 120_000);

  it("after pruning, the kept end of the chain verifies, starting after the pruned entries", async () => {
    const owner = await busyOrganisation(3);
    // Their times edited (which breaks their hashes), entries 1 to 3 are past retention and go.
    await query("update audit_entries set occurred_at = now() - interval '400 days' where org_id = $1 and sequence <= 3", [owner.orgId]);
    await pruneAuditEntries(testDatabase(), 365 * 86_400);
    expect((await auditRows(owner.orgId)).map((r) => Number(r.sequence))).toEqual([4]);
    const run = await verify(owner.orgId);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: true,
      entries: 1,
      firstSequence: 4,
      headSequence: 4,
      prunedThrough: { sequence: 3 },
    });
  }, 120_000);

  it("the oldest entries deleted by hand do not verify: retention recorded no pruning", async () => {
    const owner = await busyOrganisation(6);
    await query("delete from audit_entries where org_id = $1 and sequence <= 5", [owner.orgId]);
    const run = await verify(owner.orgId);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/entry 6 .*entries 1 to 5 are missing \(retention pruned none\)/);
  }, 120_000);

  it("the head records what retention pruned through (sequence and time); a prefix deleted past it does not verify", async () => {
    const owner = await busyOrganisation(5);
    await query("update audit_entries set occurred_at = now() - interval '400 days' where org_id = $1 and sequence <= 2", [owner.orgId]);
    const [second] = await query<{ hash: string; at: string }>(
      "select hash, occurred_at::text as at from audit_entries where org_id = $1 and sequence = 2",
      [owner.orgId],
    );
    await pruneAuditEntries(testDatabase(), 365 * 86_400);
    const [head] = await query<{ pruned_sequence: string; pruned_hash: string; at: string }>(
      "select pruned_sequence, pruned_hash, pruned_occurred_at::text as at from audit_heads where org_id = $1",
      [owner.orgId],
    );
    expect({ ...head, pruned_sequence: Number(head!.pruned_sequence) }).toEqual({
      pruned_sequence: 2,
      pruned_hash: second!.hash,
      at: second!.at,
    });
    expect((await verify(owner.orgId)).code).toBe(0);
    await query("delete from audit_entries where org_id = $1 and sequence <= 4", [owner.orgId]);
    const run = await verify(owner.orgId);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/entry 5 .*entries 3 to 4 are missing \(retention pruned through entry 2\)/);
  }, 120_000);
});
