import { sql, type SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { MAX_USER_AGENT_LENGTH, type AuditAction, type AuditEntry, type AuditRequest } from "../../domain/audit.ts";
import { uuidv7 } from "../../domain/ids.ts";
import type { Database } from "../client.ts";
import { fitsAnswer, runningBytes } from "./answer-size.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./caller.ts";
import { run, runOne } from "./sql.ts";

// The audit log (docs/audit-log.md). An entry is appended by CTEs (auditCtes) added to the very
// statement that makes the change it records, reading that change's RETURNING: no change, no
// entry, and no round trip of its own. Its hash chains it to the organisation's entry before it:
//
//   digest = sha256(canonical content)        hash = sha256(previousHash || digest)    (hex text)
//
// The chain's head (audit_heads) is updated by INSERT .. ON CONFLICT DO UPDATE, which waits for a
// concurrent append of the same organisation to commit and then reads its head, whatever the
// statement's snapshot: the organisation's appends take one order. (Taking the organisation's
// advisory lock inside the statement would not do: the snapshot is taken before the wait.)

/** The previousHash of an organisation's first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** Opsroom itself as an actor, for a statement with no caller (the CLI, the seed). */
export const SYSTEM_ACTOR_JSON = sql`jsonb_build_object('type', 'system', 'id', null, 'name', 'opsroom')`;

/**
 * An entry's canonical content, over audit_entries' columns of `alias`: what its digest covers.
 * jsonb's text form is canonical (keys sorted), so the same entry always gives the same text.
 */
export const auditContent = (alias: string) =>
  sql.raw(`jsonb_build_array(${alias}.id::text, ${alias}.org_id::text,
    to_char(${alias}.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), ${alias}.action,
    ${alias}.actor, ${alias}.target, ${alias}.changes, ${alias}.client_address, ${alias}.user_agent, ${alias}.request_id)::text`);

const sha256Hex = (text: SQL) => sql`encode(sha256(convert_to(${text}, 'UTF8')), 'hex')`;

/** What one statement records. */
export interface AuditRecord {
  /** The action; or the actions the source chooses among, in a column `action` it answers. */
  action: AuditAction | readonly AuditAction[];
  /**
   * A select of at most one row, over the change's RETURNING, with columns org_id, target (jsonb:
   * type, id, name) and changes (jsonb or null). No row (the change did not happen): no entry.
   */
  source: SQL;
  /** Who did it (jsonb); by default the statement's caller (its `key` CTE), else opsroom. */
  actor?: SQL;
}

/** The CTEs that append `record` to its organisation's chain, for the statement's request. */
export function auditCtes(record: AuditRecord, request: AuditRequest): SQL {
  const actor = record.actor ?? sql`coalesce((select actor from key), ${SYSTEM_ACTOR_JSON})`;
  const chosen = typeof record.action === "string";
  const action = chosen ? sql`${record.action}::text` : sql`s.action`;
  const userAgent = request.userAgent?.slice(0, MAX_USER_AGENT_LENGTH) ?? null;
  return sql`audit_source as (${record.source}),
      audit_new as (
        select ${uuidv7()}::uuid as id, s.org_id, now() as occurred_at, ${actor} as actor, ${action} as action,
               s.target, s.changes, ${request.clientAddress}::text as client_address, ${userAgent}::text as user_agent,
               ${request.requestId}::text as request_id
          from audit_source s${chosen ? sql`` : sql` where s.action = any(${sql.param(record.action)}::text[])`}
      ),
      audit_digest as (select n.*, ${sha256Hex(auditContent("n"))} as digest from audit_new n),
      audit_head as (
        insert into audit_heads as h (org_id, sequence, previous_hash, hash, digest)
        select d.org_id, 1, ${GENESIS_HASH}::text, ${sha256Hex(sql`${GENESIS_HASH}::text || d.digest`)}, d.digest from audit_digest d
        on conflict (org_id) do update
          set sequence = h.sequence + 1, previous_hash = h.hash, hash = ${sha256Hex(sql`h.hash || excluded.digest`)}, digest = excluded.digest
        returning h.org_id, h.sequence, h.previous_hash, h.hash
      ),
      audit_appended as (
        insert into audit_entries (id, org_id, sequence, occurred_at, actor, action, target, changes, client_address, user_agent, request_id, previous_hash, hash)
        select d.id, d.org_id, h.sequence, d.occurred_at, d.actor, d.action, d.target, d.changes, d.client_address, d.user_agent,
               d.request_id, h.previous_hash, h.hash
          from audit_digest d join audit_head h on h.org_id = d.org_id
        returning id
      )`;
}

/** A target as an entry names it: jsonb over SQL expressions for its id and name. */
export const auditTarget = (type: string, id: SQL, name: SQL) =>
  sql`jsonb_build_object('type', ${type}::text, 'id', ${id}, 'name', ${name})`;

/**
 * What changed, as an entry's `changes`: each field whose `from` and `to` (SQL expressions) differ,
 * with both; null when none did.
 */
export function auditChanges(fields: Record<string, [from: SQL, to: SQL]>): SQL {
  const pairs = Object.entries(fields).map(
    ([name, [from, to]]) =>
      sql`${name}::text, case when to_jsonb(${from}) is distinct from to_jsonb(${to}) then jsonb_build_object('from', to_jsonb(${from}), 'to', to_jsonb(${to})) end`,
  );
  return sql`(select jsonb_object_agg(f.key, f.value) from jsonb_each(jsonb_build_object(${sql.join(pairs, sql`, `)})) f
               where jsonb_typeof(f.value) <> 'null')`;
}

/** A standalone append (sign-in, sign-out): `source` as in AuditRecord, with the actor given. */
export async function appendAuditEntry(db: Database, record: Required<AuditRecord>, request: AuditRequest): Promise<boolean> {
  const [row] = await run<{ appended: number }>(
    db,
    sql`with ${auditCtes(record, request)} select count(*)::int as appended from audit_appended`,
  );
  return (row?.appended ?? 0) > 0;
}

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
}

/**
 * The caller's organisation's entries, newest first, before the entry `before` (a sequence), that
 * `filter` selects: at most `limit` of them and ANSWER_BYTES (the first always), and whether more follow.
 */
export async function listAuditEntries(
  db: Database,
  actor: Actor,
  options: { filter: AuditFilter; before: number | null; limit: number },
): Promise<AuditPage> {
  const where = [sql`e.org_id = ${CALLER_ORG}`, ...filterSql(options.filter)];
  if (options.before !== null) where.push(sql`e.sequence < ${options.before}`);
  const fits = sql`x.n <= ${options.limit} and ${fitsAnswer("x")}`;
  const row = await runOne<CallerRow & { page: { entries: AuditEntry[]; hasMore: boolean } }>(
    db,
    sql`with ${callerCtes(actor, "audit.read")}
        select ${callerColumns},
          (select json_build_object(
             'entries', coalesce(json_agg(x.entry order by x.n) filter (where ${fits}), '[]'::json),
             'hasMore', count(*) > count(*) filter (where ${fits}))
             from (select y.*, ${runningBytes(sql`y.entry`, sql`y.n`)} as bytes
                     from (select ${entryJson("e")} as entry, row_number() over (order by e.sequence desc) as n
                             from (select e.* from audit_entries e where ${sql.join(where, sql` and `)}
                                    order by e.sequence desc limit ${options.limit + 1}) e) y) x) as page`,
  );
  return {
    caller: callerOf(row),
    entries: row.page.entries.map((e) => ({ ...e, sequence: Number(e.sequence) })),
    hasMore: row.page.hasMore,
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
          from audit_entries e where e.org_id = ${orgId}::uuid and e.sequence > ${afterSequence}
         order by e.sequence limit ${limit}`,
  );
  return rows.map((row) => ({ ...row, sequence: Number(row.sequence) }));
}

/** The head of an organisation's chain (its last entry's sequence and hash), and whether the organisation exists. */
export async function chainHead(db: Database, orgId: string): Promise<{ exists: boolean; sequence: number; hash: string } | null> {
  const [row] = await run<{ exists: boolean; sequence: string | null; hash: string | null }>(
    db,
    sql`select exists (select 1 from organisations o where o.id = ${orgId}::uuid) as exists, h.sequence, h.hash
          from (select 1) one left join audit_heads h on h.org_id = ${orgId}::uuid`,
  );
  if (!row?.exists) return null;
  return { exists: true, sequence: Number(row.sequence ?? 0), hash: row.hash ?? GENESIS_HASH };
}

/**
 * Drops entries past retention. Decided by time once, then by sequence (as events are): every
 * entry before an organisation's first one younger than the retention goes, so what is kept is
 * always an unbroken end of the chain. The heads stay.
 */
export async function pruneAuditEntries(db: Database, retentionSeconds: number): Promise<number> {
  const rows = await run(
    db,
    sql`delete from audit_entries e
         where e.occurred_at <= now() - make_interval(secs => ${retentionSeconds})
           and e.sequence < coalesce((select min(k.sequence) from audit_entries k
                                       where k.org_id = e.org_id and k.occurred_at > now() - make_interval(secs => ${retentionSeconds})),
                                     9223372036854775807)
        returning 1`,
  );
  return rows.length;
}
