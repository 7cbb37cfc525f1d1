import type { Database } from "../db/client.ts";
import * as statements from "../db/statements/audit-log.ts";
import type { AuditFilter } from "../db/statements/audit-log.ts";
import { GENESIS_HASH } from "../db/statements/engine/audit.ts";
import type { AuditEntry } from "../domain/audit.ts";
import { sha256Hex } from "../domain/crypto/hash.ts";
import type { Call } from "./context.ts";
import { settleCaller } from "./settle.ts";

// The audit log (docs/audit-log.md): read by owners and admins (their role holds audit.read) and
// by keys given audit.read; written only by the statements of the actions it records.

export type { AuditFilter };

/** A page of the caller's organisation's entries, newest first, before the entry `before` (a sequence). */
export async function listAuditLog({
  ctx,
  input,
}: Call<{ filter: AuditFilter; before: number | null; limit: number; after?: number | null }>) {
  const page = await statements.listAuditEntries(ctx.db, ctx.actor, input);
  settleCaller(page.caller, ctx, "audit.read");
  return { entries: page.entries, hasMore: page.hasMore };
}

/**
 * The entries `filter` selects before `before`, newest first, a page at a time (each one statement,
 * bounded by ANSWER_BYTES): what the NDJSON export streams. The first page is read at once, so a
 * refusal is still an ordinary error answer, and with it where the export stops: after `pages`
 * pages' worth of entries (a page cut short by size leaves room: half of `pages` are counted),
 * so that it never needs more statements than its invocation may make (functions/subrequests.ts)
 * and is never cut after its 200. `next` is the cursor the rest starts from, or null: all of it.
 */
export async function exportAuditLog({
  ctx,
  input,
}: Call<{ filter: AuditFilter; pageSize: number; before: number | null; pages: number }>) {
  const boundaryAt = Math.max(1, Math.floor(input.pages / 2)) * input.pageSize;
  const first = await statements.listAuditEntries(ctx.db, ctx.actor, { ...input, limit: input.pageSize, boundaryAt });
  settleCaller(first.caller, ctx, "audit.read");
  const stop = first.boundary ?? null;
  async function* rest(page: { entries: AuditEntry[]; hasMore: boolean }) {
    for (let read = 1; ; read++) {
      const last = page.entries.at(-1);
      if (!page.hasMore || !last) return;
      if (read >= input.pages) throw new Error(`the audit export needed more than ${input.pages} pages`);
      page = await listAuditLog({ ctx, input: { filter: input.filter, before: last.sequence, after: stop, limit: input.pageSize } });
      yield page.entries;
    }
  }
  return { first: first.entries, rest: rest(first), next: stop === null ? null : stop + 1 };
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
  /** What retention pruned the chain through (the last entry it deleted, and when that entry occurred); null: nothing. */
  prunedThrough: { sequence: number; occurredAt: string | null } | null;
  /** The first entry that does not verify, and why. */
  firstBad: { id: string | null; sequence: number; problem: string } | null;
}

/** Entries the verifier reads per statement. */
const VERIFY_PAGE = 1000;

type Head = NonNullable<Awaited<ReturnType<typeof statements.chainHead>>>;

/**
 * Why the first entry kept does not start what is kept, or null: it must follow what retention
 * pruned through (its sequence next, its previousHash that entry's hash), or start the chain when
 * nothing was pruned. Anything else is a prefix deleted by another hand than retention's.
 */
function startProblem(link: statements.ChainLink, head: Head): string | null {
  const after = head.pruned ?? { sequence: 0, hash: GENESIS_HASH };
  if (link.sequence > after.sequence + 1) {
    const pruned = head.pruned ? `retention pruned through entry ${after.sequence}` : "retention pruned none";
    return `entries ${after.sequence + 1} to ${link.sequence - 1} are missing (${pruned})`;
  }
  if (link.sequence <= after.sequence) return `retention recorded entries through ${after.sequence} as pruned, but this one is kept`;
  if (link.previousHash !== after.hash)
    return head.pruned ? "its previousHash is not the hash of the last entry retention pruned" : "the first entry does not start the chain";
  return null;
}

/**
 * Checks an organisation's chain: each entry's hash against its content as stored now and the
 * hash before it, each entry's previousHash against the entry before, the sequence unbroken, the
 * first entry kept right after what retention pruned (or the first ever), and the last entry against
 * the chain's head. Null when there is no such organisation.
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
    prunedThrough: head.pruned && { sequence: head.pruned.sequence, occurredAt: head.pruned.occurredAt },
    firstBad: null,
  };
  let previous: { sequence: number; hash: string } | null = null;
  const fail = (id: string | null, sequence: number, problem: string) => ({ ...report, ok: false, firstBad: { id, sequence, problem } });
  for (let after = 0; ;) {
    const links = await statements.chainLinks(ctx.db, input.orgId, after, VERIFY_PAGE);
    for (const link of links) {
      const problem =
        previous === null
          ? startProblem(link, head)
          : link.sequence !== previous.sequence + 1
            ? `entries ${previous.sequence + 1} to ${link.sequence - 1} are missing`
            : link.previousHash !== previous.hash
              ? "its previousHash is not the hash of the entry before it"
              : null;
      if (problem) return fail(link.id, link.sequence, problem);
      report.firstSequence ??= link.sequence;
      if (sha256Hex(link.previousHash + sha256Hex(link.content)) !== link.hash)
        return fail(link.id, link.sequence, "its content or hash was changed after it was written");
      previous = { sequence: link.sequence, hash: link.hash };
      report.entries++;
      report.lastSequence = link.sequence;
    }
    if (links.length < VERIFY_PAGE) break;
    after = links.at(-1)!.sequence;
  }
  const last = previous ??
    (head.pruned && { sequence: head.pruned.sequence, hash: head.pruned.hash }) ?? { sequence: 0, hash: GENESIS_HASH };
  if (last.sequence !== head.sequence || last.hash !== head.hash)
    return fail(null, last.sequence + 1, `the newest entries, ${last.sequence + 1} to ${head.sequence}, are missing`);
  return report;
}
