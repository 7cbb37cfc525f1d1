import type { Database } from "../db/client.ts";
import * as statements from "../db/statements/audit.ts";
import { sha256Hex } from "../domain/crypto/hash.ts";
import type { AuditFilter } from "../db/statements/audit.ts";
import type { Call } from "./context.ts";
import { settleCaller } from "./settle.ts";

// The audit log (docs/audit-log.md): read by owners and admins (their role holds audit.read) and
// by keys given audit.read; written only by the statements of the actions it records.

export type { AuditFilter };

/** A page of the caller's organisation's entries, newest first, before the entry `before` (a sequence). */
export async function listAuditLog({ ctx, input }: Call<{ filter: AuditFilter; before: number | null; limit: number }>) {
  const page = await statements.listAuditEntries(ctx.db, ctx.actor, input);
  settleCaller(page.caller, ctx, "audit.read");
  return { entries: page.entries, hasMore: page.hasMore };
}

/**
 * Every entry `filter` selects, newest first, a page at a time (each one statement, bounded by
 * ANSWER_BYTES): what the NDJSON export streams. The first page is read before anything is sent,
 * so a refusal is still an ordinary error answer.
 */
export async function* exportAuditLog({ ctx, input }: Call<{ filter: AuditFilter; pageSize: number }>) {
  let before: number | null = null;
  for (;;) {
    const page = await listAuditLog({ ctx, input: { filter: input.filter, before, limit: input.pageSize } });
    yield page.entries;
    const last = page.entries.at(-1);
    if (!page.hasMore || !last) return;
    before = last.sequence;
  }
}

/** What `opsroom audit verify` found. */
export interface ChainReport {
  orgId: string;
  ok: boolean;
  /** Entries checked, and the first and last sequence kept (null when none is). */
  entries: number;
  firstSequence: number | null;
  lastSequence: number | null;
  /** The chain's head: the sequence of the last entry ever appended. */
  headSequence: number;
  /** The first entry that does not verify, and why. */
  firstBad: { id: string | null; sequence: number; problem: string } | null;
}

/** Entries the verifier reads per statement. */
const VERIFY_PAGE = 1000;

/**
 * Checks an organisation's chain: each entry's hash against its content as stored now and the
 * hash before it, each entry's previousHash against the entry before, the sequence unbroken, and
 * the last entry against the chain's head. The first entry kept may follow pruned ones (retention);
 * the first ever has the genesis hash before it. Null when there is no such organisation.
 */
export async function verifyAuditChain({ ctx, input }: Call<{ orgId: string }, { db: Database }>): Promise<ChainReport | null> {
  const head = await statements.chainHead(ctx.db, input.orgId);
  if (!head) return null;
  const report: ChainReport = {
    orgId: input.orgId,
    ok: true,
    entries: 0,
    firstSequence: null,
    lastSequence: null,
    headSequence: head.sequence,
    firstBad: null,
  };
  let previous: { sequence: number; hash: string } | null = null;
  const fail = (id: string | null, sequence: number, problem: string) => ({ ...report, ok: false, firstBad: { id, sequence, problem } });
  for (let after = 0; ;) {
    const links = await statements.chainLinks(ctx.db, input.orgId, after, VERIFY_PAGE);
    for (const link of links) {
      if (previous === null) {
        report.firstSequence = link.sequence;
        if (link.sequence === 1 && link.previousHash !== statements.GENESIS_HASH)
          return fail(link.id, 1, "the first entry does not start the chain");
      } else if (link.sequence !== previous.sequence + 1) {
        return fail(link.id, link.sequence, `entries ${previous.sequence + 1} to ${link.sequence - 1} are missing`);
      } else if (link.previousHash !== previous.hash) {
        return fail(link.id, link.sequence, "its previousHash is not the hash of the entry before it");
      }
      if (sha256Hex(link.previousHash + sha256Hex(link.content)) !== link.hash)
        return fail(link.id, link.sequence, "its content or hash was changed after it was written");
      previous = { sequence: link.sequence, hash: link.hash };
      report.entries++;
      report.lastSequence = link.sequence;
    }
    if (links.length < VERIFY_PAGE) break;
    after = links.at(-1)!.sequence;
  }
  if (previous && (previous.sequence !== head.sequence || previous.hash !== head.hash))
    return fail(null, previous.sequence + 1, `the newest entries, ${previous.sequence + 1} to ${head.sequence}, are missing`);
  return report;
}
