import type { SQL } from "drizzle-orm";
import { MAX_USER_AGENT_LENGTH, type AuditAction, type AuditRequest } from "../../../domain/audit.ts";
import { uuidv7 } from "../../../domain/ids.ts";
import type { Database } from "../../client.ts";
import { auditEntries, auditHeads } from "../../schema/index.ts";
import { sql } from "./sql-tag.ts";
import { run } from "./sql.ts";

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
//
// Every statement that appends takes its helpers from this module, the one import path for them.
// Reading the log, verifying its chain and retention are audit-log.ts: they find their caller
// (caller.ts), whose MCP session's CTEs append, so this module imports neither.

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
   * A select over the change's RETURNING, with columns org_id, target (jsonb: type, id, name) and
   * changes (jsonb or null): an entry per row, every row of one organisation. No row (the change
   * did not happen): no entry. Several rows take the order of `order`.
   */
  source: SQL;
  /** Who did it (jsonb); by default the statement's caller (its `key` CTE), else opsroom. */
  actor?: SQL;
  /** The entries' order, an expression over the source's row `s`, when it may have several. */
  order?: SQL;
}

/**
 * A UUID v7 made in SQL, for each entry after a statement's first (whose id is made here, as every
 * id is): the milliseconds of the clock, the version, and the rest of gen_random_uuid()'s random bits.
 */
const sqlUuidv7 = sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
  placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/**
 * The hash the chain reaches from `start` (a text expression) through the digests of `digested`
 * (its rows k = 1, 2, ...): hash(k) = sha256(hash(k - 1) || digest(k)), each hash with the one it
 * followed (`previous_hash`).
 */
const chainFrom = (start: SQL, digested: SQL) => sql`(with recursive c(k, previous_hash, hash) as (
      select 0::bigint, null::text, ${start}
      union all
      select c.k + 1, c.hash, ${sha256Hex(sql`c.hash || d.digest`)} from c join ${digested} d on d.k = c.k + 1
    ) select * from c where c.k > 0)`;

/**
 * The CTEs that append `record`'s entries to their organisation's chain, for the statement's
 * request, named `<prefix>_source` ... `<prefix>_appended`. One append per statement and
 * organisation: a second would update the chain's head twice, which Postgres refuses (caller.ts
 * leaves out the MCP session's entry from a statement that appends its own); one append may hold
 * several entries (a member removed, and the installations that rested on them).
 */
export function auditCtes(record: AuditRecord, request: AuditRequest, prefix = "audit"): SQL {
  const named = (name: string) => sql.raw(`${prefix}_${name}`);
  const [source, fresh, digested, head, appended] = [named("source"), named("new"), named("digest"), named("head"), named("appended")];
  const actor = record.actor ?? sql`coalesce((select actor from key), ${SYSTEM_ACTOR_JSON})`;
  const chosen = typeof record.action === "string";
  const action = chosen ? sql`${record.action}::text` : sql`s.action`;
  const userAgent = request.userAgent?.slice(0, MAX_USER_AGENT_LENGTH) ?? null;
  const last = sql`(select max(k) from ${digested})`;
  return sql`${source} as (${record.source}),
      ${fresh} as (
        select case when x.k = 1 then ${uuidv7()}::uuid else ${sqlUuidv7} end as id, x.*
          from (select row_number() over (order by ${record.order ?? sql`1`}) as k, s.org_id, now() as occurred_at, ${actor} as actor,
                       ${action} as action, s.target, s.changes, ${request.clientAddress}::text as client_address,
                       ${userAgent}::text as user_agent, ${request.requestId}::text as request_id
                  from ${source} s${chosen ? sql`` : sql` where s.action = any(${sql.param(record.action)}::text[])`}) x
      ),
      ${digested} as (select n.*, ${sha256Hex(auditContent("n"))} as digest from ${fresh} n),
      ${head} as (
        -- The head moves past every entry; previous_hash keeps the hash this append started from.
        insert into ${auditHeads} as h (org_id, sequence, previous_hash, hash, digest)
        select d.org_id, ${last}, ${GENESIS_HASH}::text, (select c.hash from ${chainFrom(sql`${GENESIS_HASH}::text`, digested)} c where c.k = ${last}),
               d.digest
          from ${digested} d where d.k = ${last}
        on conflict (org_id) do update
          set sequence = h.sequence + excluded.sequence, previous_hash = h.hash,
              hash = (select c.hash from ${chainFrom(sql`h.hash`, digested)} c where c.k = ${last}), digest = excluded.digest
        returning h.org_id, h.sequence, h.previous_hash
      ),
      ${appended} as (
        insert into ${auditEntries} (id, org_id, sequence, occurred_at, actor, action, target, changes, client_address, user_agent, request_id, previous_hash, hash)
        select d.id, d.org_id, h.sequence - ${last} + d.k, d.occurred_at, d.actor, d.action, d.target, d.changes, d.client_address,
               d.user_agent, d.request_id, c.previous_hash, c.hash
          from ${head} h cross join lateral ${chainFrom(sql`h.previous_hash`, digested)} c join ${digested} d on d.k = c.k
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

/**
 * What changed among `fields` (each an expression over a row's alias) from the row `before` (null:
 * none, a creation, every field from null) to the row `after`, as auditChanges answers it.
 */
export const rowChanges = (fields: Record<string, (alias: string) => SQL>, before: string | null, after: string) =>
  auditChanges(
    Object.fromEntries(Object.entries(fields).map(([name, of]) => [name, [before ? of(before) : sql`null::jsonb`, of(after)]])) as Record<
      string,
      [SQL, SQL]
    >,
  );

/** A standalone append (sign-in, sign-out): `source` as in AuditRecord, with the actor given. */
export async function appendAuditEntry(db: Database, record: AuditRecord & { actor: SQL }, request: AuditRequest): Promise<boolean> {
  const [row] = await run<{ appended: number }>(
    db,
    sql`with ${auditCtes(record, request)} select count(*)::int as appended from audit_appended`,
  );
  return (row?.appended ?? 0) > 0;
}
