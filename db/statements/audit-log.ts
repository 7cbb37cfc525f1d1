import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { AuditAction, AuditEntry } from "../../domain/audit.ts";
import type { Database } from "../client.ts";
import { auditEntries, auditHeads, mcpSessionDays, organisations } from "../schema/index.ts";
import { fitsAnswer, runningBytes } from "./engine/answer-size.ts";
import { auditContent, GENESIS_HASH } from "./engine/audit.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./engine/caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";

// The audit log (docs/audit-log.md): reading it, verifying its chain, retention. Appending is
// audit.ts, which the statements that make changes use (this module reads callers, caller.ts,
// whose MCP session's CTEs append: audit.ts imports neither).

// ---------------------------------------------------------------------------------------------
// Reading

export interface AuditFilter {
  actions?: AuditAction[] | undefined;
  actorId?: string | undefined;
  targetId?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

const entryJson = (e: string) =>
  sql.raw(`json_build_object('id', ${e}.id, 'sequence', ${e}.sequence,
    'occurredAt', to_char(${e}.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'actor', ${e}.actor, 'action', ${e}.action, 'target', ${e}.target, 'changes', ${e}.changes,
    'clientAddress', ${e}.client_address, 'userAgent', ${e}.user_agent, 'requestId', ${e}.request_id,
    'previousHash', ${e}.previous_hash, 'hash', ${e}.hash)`);

function filterSql(filter: AuditFilter): SQL[] {
  const conditions: SQL[] = [];
  if (filter.actions?.length) conditions.push(sql`e.action = any(${sql.param(filter.actions)}::text[])`);
  if (filter.actorId) conditions.push(sql`e.actor->>'id' = ${filter.actorId.toLowerCase()}`);
  if (filter.targetId) conditions.push(sql`e.target->>'id' = ${filter.targetId.toLowerCase()}`);
  if (filter.since) conditions.push(sql`e.occurred_at >= ${filter.since}::timestamptz`);
  if (filter.until) conditions.push(sql`e.occurred_at < ${filter.until}::timestamptz`);
  return conditions;
}

export interface AuditPage {
  caller: CallerOutcome;
  entries: AuditEntry[];
  hasMore: boolean;
  /** With `boundaryAt`: the sequence of the entry that many entries on (the first not to take), or null when there is none. */
  boundary?: number | null;
}

/**
 * The caller's organisation's entries, newest first, before the entry `before` (a sequence), that
 * `filter` selects: at most `limit` of them and ANSWER_BYTES (the first always), and whether more follow.
 */
export async function listAuditEntries(
  db: Database,
  actor: Actor,
  options: { filter: AuditFilter; before: number | null; limit: number; after?: number | null; boundaryAt?: number },
): Promise<AuditPage> {
  const where = [sql`e.org_id = ${CALLER_ORG}`, ...filterSql(options.filter)];
  if (options.before !== null) where.push(sql`e.sequence < ${options.before}`);
  const boundaryWhere = [...where];
  if (options.after != null) where.push(sql`e.sequence > ${options.after}`);
  const fits = sql`x.n <= ${options.limit} and ${fitsAnswer("x")}`;
  const row = await runOne<CallerRow & { page: { entries: AuditEntry[]; hasMore: boolean }; boundary?: string | number | null }>(
    db,
    sql`with ${callerCtes(actor, "audit.read")}
        select ${callerColumns},
          (select json_build_object(
             'entries', coalesce(json_agg(x.entry order by x.n) filter (where ${fits}), '[]'::json),
             'hasMore', count(*) > count(*) filter (where ${fits}))
             from (select y.*, ${runningBytes(sql`y.entry`, sql`y.n`)} as bytes
                     from (select ${entryJson("e")} as entry, row_number() over (order by e.sequence desc) as n
                             from (select e.* from ${auditEntries} e where ${sql.join(where, sql` and `)}
                                    order by e.sequence desc limit ${options.limit + 1}) e) y) x) as page
          ${
            options.boundaryAt === undefined
              ? sql``
              : sql`, (select e.sequence from ${auditEntries} e where ${sql.join(boundaryWhere, sql` and `)}
                        order by e.sequence desc offset ${options.boundaryAt} limit 1) as boundary`
          }`,
  );
  return {
    caller: callerOf(row),
    entries: row.page.entries.map((e) => ({ ...e, sequence: Number(e.sequence) })),
    hasMore: row.page.hasMore,
    ...(options.boundaryAt === undefined ? {} : { boundary: row.boundary == null ? null : Number(row.boundary) }),
  };
}

// ---------------------------------------------------------------------------------------------
// The chain, for `opsroom audit verify`; retention

/** An entry as the verifier checks it: its stored hashes and its content as recomputed from its columns now. */
export interface ChainLink {
  id: string;
  sequence: number;
  previousHash: string;
  hash: string;
  content: string;
}

/** An organisation's entries after `afterSequence`, in chain order, at most `limit`. */
export async function chainLinks(db: Database, orgId: string, afterSequence: number, limit: number): Promise<ChainLink[]> {
  const rows = await run<ChainLink>(
    db,
    sql`select e.id, e.sequence, e.previous_hash as "previousHash", e.hash, ${auditContent("e")} as content
          from ${auditEntries} e where e.org_id = ${orgId}::uuid and e.sequence > ${afterSequence}
         order by e.sequence limit ${limit}`,
  );
  return rows.map((row) => ({ ...row, sequence: Number(row.sequence) }));
}

/** Where retention pruned an organisation's chain through: the last entry it deleted. */
export interface PrunedThrough {
  sequence: number;
  hash: string;
  occurredAt: string | null;
}

/**
 * The head of an organisation's chain (its last entry's sequence and hash) and what retention pruned
 * it through, if it did; null when there is no such organisation.
 */
export async function chainHead(
  db: Database,
  orgId: string,
): Promise<{ sequence: number; hash: string; pruned: PrunedThrough | null } | null> {
  const [row] = await run<{
    exists: boolean;
    sequence: string | null;
    hash: string | null;
    prunedSequence: string | null;
    prunedHash: string | null;
    prunedAt: string | null;
  }>(
    db,
    sql`select exists (select 1 from ${organisations} o where o.id = ${orgId}::uuid) as exists, h.sequence, h.hash,
               h.pruned_sequence as "prunedSequence", h.pruned_hash as "prunedHash",
               to_char(h.pruned_occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "prunedAt"
          from (select 1) one left join ${auditHeads} h on h.org_id = ${orgId}::uuid`,
  );
  if (!row?.exists) return null;
  const pruned =
    row.prunedSequence === null ? null : { sequence: Number(row.prunedSequence), hash: row.prunedHash!, occurredAt: row.prunedAt };
  return { sequence: Number(row.sequence ?? 0), hash: row.hash ?? GENESIS_HASH, pruned };
}

/**
 * Drops entries past retention. Decided by time once, then by sequence (as events are): every
 * entry before an organisation's first one younger than the retention goes, so what is kept is
 * always an unbroken end of the chain. The chain's head records what was pruned through (the last
 * entry deleted: its sequence, hash and time), so the first entry kept must follow it, and a prefix
 * deleted by any other hand does not verify. The MCP sessions' days before yesterday go too
 * (mcp-sessions.ts: only today's row is ever read).
 */
export async function pruneAuditEntries(db: Database, retentionSeconds: number): Promise<number> {
  const row = await runOne<{ pruned: number }>(
    db,
    sql`with days as (delete from ${mcpSessionDays} where day < (now() at time zone 'UTC')::date - 1),
        pruned as (
          delete from ${auditEntries} e
           where e.occurred_at <= now() - make_interval(secs => ${retentionSeconds})
             and e.sequence < coalesce((select min(k.sequence) from ${auditEntries} k
                                         where k.org_id = e.org_id and k.occurred_at > now() - make_interval(secs => ${retentionSeconds})),
                                       9223372036854775807)
          returning e.org_id, e.sequence, e.hash, e.occurred_at
        ),
        through as (select distinct on (p.org_id) p.* from pruned p order by p.org_id, p.sequence desc),
        recorded as (
          update ${auditHeads} h set pruned_sequence = t.sequence, pruned_hash = t.hash, pruned_occurred_at = t.occurred_at
            from through t where h.org_id = t.org_id
          returning 1
        )
        select (select count(*) from pruned)::int as pruned`,
  );
  return row.pruned;
}
