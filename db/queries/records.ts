import { is, SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Scope } from "../../functions/lib/scopes.ts";
import { uuidv7 } from "../../functions/lib/ids.ts";
import type { Database } from "../client.ts";
import { actorColumns, actorCtes, assertAllowed, type Actor, type ActorOutcome } from "./actor.ts";
import { translateConstraintError } from "./constraint-errors.ts";
import { runOne } from "./sql.ts";
import { forgetExpired, isIdempotencyRace, rememberCte, replayCte, type IdempotencyRequest } from "./idempotency.ts";
import { eventProjection } from "./events.ts";
import type { OpsEvent } from "../../functions/lib/events.ts";

// The generic statements behind every resource. Each call is ONE SQL statement: the key check,
// the tenant filter, the preconditions, the change, the changeVersion bump and the outbox event
// travel together, so a call costs one round trip and a refused call writes nothing.

// numeric: answered as a JSON number (a project's budget); decimal: answered as a string with exactly
// 2 decimals, so money never passes through a float (financial entry amounts).
export type ColumnKind = "uuid" | "text" | "textArray" | "date" | "numeric" | "decimal" | "boolean" | "integer" | "timestamp";

export interface ColumnDef {
  /** The public (camelCase) field name. */
  key: string;
  column: string;
  kind: ColumnKind;
  /** Written but never answered (a webhook's signing secret). */
  hidden?: boolean;
}

export interface ResourceDef {
  table: string;
  /** Event name prefix: "task" gives task.created, task.updated, task.deleted. */
  type: string;
  readScope: Scope;
  manageScope: Scope;
  /** Public fields besides id, orgId, version, createdAt and updatedAt, in response order. */
  columns: ColumnDef[];
  /**
   * False for integration settings (webhooks) whose writes are not operational data: they move
   * no changeVersion and emit no event. Default true.
   */
  emitsEvents?: boolean;
}

const SQL_TYPE: Record<ColumnKind, string> = {
  uuid: "uuid",
  text: "text",
  textArray: "text[]",
  date: "date",
  numeric: "numeric",
  decimal: "numeric",
  boolean: "boolean",
  integer: "integer",
  timestamp: "timestamptz",
};

function publicValue(alias: string, column: string, kind: ColumnKind): SQL {
  const ref = sql.raw(`${alias}.${column}`);
  switch (kind) {
    case "date":
      return sql`to_char(${ref}, 'YYYY-MM-DD')`;
    case "numeric":
      return sql`${ref}::float8`;
    case "decimal":
      return sql`round(${ref}, 2)::text`;
    case "timestamp":
      return sql`to_char(${ref} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    default:
      return ref;
  }
}

/** The public record's fields, in response order. */
function publicColumns(def: ResourceDef): ColumnDef[] {
  return [
    { key: "id", column: "id", kind: "uuid" },
    { key: "orgId", column: "org_id", kind: "uuid" },
    ...def.columns.filter((c) => !c.hidden),
    { key: "version", column: "version", kind: "integer" },
    { key: "createdAt", column: "created_at", kind: "timestamp" },
    { key: "updatedAt", column: "updated_at", kind: "timestamp" },
  ];
}

const projections = new WeakMap<ResourceDef, Map<string, SQL>>();
const dialect = new PgDialect();

/**
 * The public record, built by Postgres as JSON: responses and event payloads share it. It depends
 * only on the resource and the alias, so it is compiled once, to one piece of SQL text with the
 * field names inline (a write statement holds up to six of them: rebuilding and recompiling them
 * on every call was most of the statement's compile time).
 */
export function projection(def: ResourceDef, alias: string): SQL {
  let byAlias = projections.get(def);
  if (!byAlias) projections.set(def, (byAlias = new Map()));
  let built = byAlias.get(alias);
  if (!built) {
    const pairs = publicColumns(def).map((c) => {
      if (!/^[A-Za-z]\w*$/.test(c.key)) throw new Error(`field name ${c.key} cannot be inlined`);
      return sql`${sql.raw(`'${c.key}'`)}::text, ${publicValue(alias, c.column, c.kind)}`;
    });
    const compiled = dialect.sqlToQuery(sql`json_build_object(${sql.join(pairs, sql`, `)})`);
    if (compiled.params.length > 0) throw new Error("a projection must not take parameters");
    built = sql.raw(compiled.sql);
    byAlias.set(alias, built);
  }
  return built;
}

/**
 * A stored response back in the order `projection` answered it (extra fields, such as a webhook's
 * secret, after): jsonb keeps keys in its own order, and a replay must be the first response byte
 * for byte.
 */
function inResponseOrder(def: ResourceDef, record: RecordJson): RecordJson {
  const ordered: Record<string, unknown> = {};
  for (const { key } of publicColumns(def)) if (key in record) ordered[key] = record[key];
  for (const [key, value] of Object.entries(record)) if (!(key in ordered)) ordered[key] = value;
  return ordered as RecordJson;
}

function column(def: ResourceDef, key: string): ColumnDef {
  const found = def.columns.find((c) => c.key === key);
  if (!found) throw new Error(`${def.table} has no field ${key}`);
  return found;
}

/** A value as a typed parameter; an SQL fragment (a value computed in the statement) as it is. */
function typed(value: unknown, kind: ColumnKind): SQL {
  if (is(value, SQL)) return value;
  // Arrays go as one parameter; drizzle would otherwise spread them into a list.
  const param = Array.isArray(value) ? sql.param(value) : (value ?? null);
  return sql`${param}::${sql.raw(SQL_TYPE[kind])}`;
}

/** A precondition a write depends on, named after the body field it is about. */
export interface Reference {
  field: string;
  /** Boolean SQL; may use `auth.org_id` (and `l.` for the locked row in updates). */
  exists: SQL;
}

function referenceCte(references: Reference[], from: SQL): SQL {
  if (references.length === 0) return sql`refs as (select true as none from ${from})`;
  const checks = references.map((r) => sql`(${r.exists}) as ${sql.identifier(r.field)}`);
  return sql`refs as (select ${sql.join(checks, sql`, `)} from ${from})`;
}

function referencesHold(references: Reference[]): SQL {
  if (references.length === 0) return sql`true`;
  return sql.join(references.map((r) => sql`refs.${sql.identifier(r.field)}`), sql` and `);
}

/** `locked`: the caller's record, row-locked, as it is now (not as the statement's snapshot saw it). */
function lockedCte(def: ResourceDef, id: string): SQL {
  return sql`locked as (
    select * from ${sql.identifier(def.table)} r
     where r.org_id = (select org_id from auth) and r.id = ${id}::uuid
       for update
  )`;
}

/** The changeVersion bump and the outbox row, fed by the CTE `changed` holding the written row. */
function bumpAndEvent(def: ResourceDef, action: "created" | "updated" | "deleted", changes: SQL): SQL {
  if (def.emitsEvents === false) return sql`bump as (select null::bigint as change_version where false), event as (select * from events where false)`;
  return sql`bump as (
      update organisations o set change_version = o.change_version + 1
        from changed where o.id = changed.org_id
      returning o.change_version
    ),
    event as (
      insert into events (id, org_id, change_version, type, scope, data, changes)
      select ${uuidv7()}::uuid, changed.org_id, bump.change_version, ${`${def.type}.${action}`}, ${def.readScope},
             ${projection(def, "changed")}, ${changes}
        from changed, bump
      returning *
    )`;
}

async function execute<Row>(db: Database, statement: SQL, deleting = false): Promise<Row & ActorOutcome> {
  try {
    return await runOne<Row & ActorOutcome>(db, statement);
  } catch (error) {
    throw translateConstraintError(error, deleting);
  }
}

export interface WriteResult<Record> {
  record: Record;
  /** The outbox event this write committed; null when nothing changed (a no-op PATCH, a replay). */
  event: OpsEvent | null;
  /** True when this is the stored first response to a repeated Idempotency-Key. */
  replayed?: boolean;
}

/** The statement's event, with its bigint changeVersion as a number. */
function committed(record: RecordJson, event: OpsEvent | null): WriteResult<RecordJson> {
  return { record, event: event && { ...event, changeVersion: Number(event.changeVersion) } };
}

export type RecordJson = Record<string, unknown> & { id: string; version: number; createdAt: string };

export async function getRecord(db: Database, actor: Actor, def: ResourceDef, id: string): Promise<RecordJson | null> {
  const row = await execute<{ record: RecordJson | null }>(
    db,
    sql`with ${actorCtes(actor, def.readScope)}
        select ${actorColumns},
               (select ${projection(def, "r")} from ${sql.identifier(def.table)} r
                 where r.org_id = (select org_id from auth) and r.id = ${id}::uuid) as record`,
  );
  assertAllowed(row, actor, def.readScope);
  return row.record;
}

export interface ListOptions {
  /** Boolean SQL over alias `r`, already validated by the caller. */
  filters: SQL[];
  limit: number;
  after: { createdAt: string; id: string } | null;
  /** When listing under a parent (a project's milestones): the parent must exist. */
  parent?: { table: string; id: string };
}

export async function listRecords(
  db: Database,
  actor: Actor,
  def: ResourceDef,
  options: ListOptions,
): Promise<{ records: RecordJson[]; parentFound: boolean; hasMore: boolean }> {
  const conditions = [sql`r.org_id = (select org_id from auth)`, ...options.filters];
  if (options.after) {
    conditions.push(sql`(r.created_at, r.id) > (${options.after.createdAt}::timestamptz, ${options.after.id}::uuid)`);
  }
  const parent = options.parent
    ? sql`exists (select 1 from ${sql.identifier(options.parent.table)} p
                   where p.org_id = (select org_id from auth) and p.id = ${options.parent.id}::uuid)`
    : sql`true`;
  const row = await execute<{ records: RecordJson[]; parent_found: boolean }>(
    db,
    sql`with ${actorCtes(actor, def.readScope)}
        select ${actorColumns}, ${parent} as parent_found,
               (select coalesce(json_agg(x.record order by x.created_at, x.id), '[]'::json) from (
                  select ${projection(def, "r")} as record, r.created_at, r.id
                    from ${sql.identifier(def.table)} r
                   where ${sql.join(conditions, sql` and `)}
                   order by r.created_at, r.id
                   limit ${options.limit + 1}
               ) x) as records`,
  );
  assertAllowed(row, actor, def.readScope);
  const hasMore = row.records.length > options.limit;
  return { records: row.records.slice(0, options.limit), parentFound: row.parent_found, hasMore };
}

export interface CreateOptions {
  values: Record<string, unknown>;
  references: Reference[];
  /** A parent named in the path (POST /v1/projects/:id/milestones): missing means 404. */
  parent?: { table: string; id: string };
  /** Replays the first response instead of creating twice (SPEC: Idempotency-Key). */
  idempotency?: IdempotencyRequest;
  /** What a replay answers, over the CTE `changed`; default the public record. */
  remember?: SQL;
}

export interface CreateOutcome {
  parentFound: boolean;
  failedReferences: string[];
  result: WriteResult<RecordJson> | null;
  /** A stored first response for this Idempotency-Key, and the hash of the request that made it. */
  replay: { requestHash: string; record: RecordJson } | null;
}

export async function createRecord(db: Database, actor: Actor, def: ResourceDef, options: CreateOptions): Promise<CreateOutcome> {
  try {
    return await createOnce(db, actor, def, options);
  } catch (error) {
    // Two requests with one Idempotency-Key at once: the loser's whole statement rolled back on
    // the key's primary key. Run again, and it finds the winner's response to replay.
    if (!options.idempotency || !isIdempotencyRace(error)) throw translateConstraintError(error);
    if ("keyHash" in actor) await forgetExpired(db, actor.keyHash, options.idempotency);
    return createOnce(db, actor, def, options).catch((retryError: unknown) => {
      throw translateConstraintError(retryError);
    });
  }
}

async function createOnce(db: Database, actor: Actor, def: ResourceDef, options: CreateOptions): Promise<CreateOutcome> {
  const entries = Object.entries(options.values).filter(([, value]) => value !== undefined);
  const columns = entries.map(([key]) => sql.identifier(column(def, key).column));
  const values = entries.map(([key, value]) => typed(value, column(def, key).kind));
  const parent = options.parent
    ? sql`exists (select 1 from ${sql.identifier(options.parent.table)} p
                   where p.org_id = auth.org_id and p.id = ${options.parent.id}::uuid)`
    : sql`true`;
  const row = await runOne<ActorOutcome & {
    parent_found: boolean | null;
    refs: Record<string, boolean> | null;
    record: RecordJson | null;
    event: OpsEvent | null;
    replay: { request_hash: string; response: RecordJson } | null;
  }>(
    db,
    sql`with ${actorCtes(actor, def.manageScope)},
        ${referenceCte(options.references, sql`auth`)},
        ${replayCte(options.idempotency)},
        changed as (
          insert into ${sql.identifier(def.table)} (id, org_id, ${sql.join(columns, sql`, `)})
          select ${uuidv7()}::uuid, auth.org_id, ${sql.join(values, sql`, `)}
            from auth, refs
           where ${parent} and ${referencesHold(options.references)} and not exists (select 1 from replay)
          returning *
        ),
        ${bumpAndEvent(def, "created", sql`null::jsonb`)},
        ${rememberCte(options.idempotency, options.remember ?? projection(def, "changed"))}
        select ${actorColumns},
               (select ${parent} from auth) as parent_found,
               (select row_to_json(refs) from refs) as refs,
               (select ${projection(def, "changed")} from changed) as record,
               (select ${eventProjection("event")} from event) as event,
               (select row_to_json(replay) from replay) as replay`,
  );
  assertAllowed(row, actor, def.manageScope);
  return {
    parentFound: row.parent_found !== false,
    failedReferences: options.references.map((r) => r.field).filter((field) => row.refs?.[field] === false),
    result: row.record ? committed(row.record, row.event) : null,
    replay: row.replay ? { requestHash: row.replay.request_hash, record: inResponseOrder(def, row.replay.response) } : null,
  };
}

export interface UpdateOptions {
  id: string;
  patch: Record<string, unknown>;
  ifMatch: number | null;
  references: Reference[];
  /** State rules over the locked row `l` and the patch (the task workflow); each must hold. */
  rules: { name: string; holds: SQL }[];
}

export interface UpdateOutcome {
  found: boolean;
  before: RecordJson | null;
  versionMatches: boolean;
  failedReferences: string[];
  failedRules: string[];
  result: WriteResult<RecordJson> | null;
}

const changedFields = sql`(
  select jsonb_object_agg(n.key, jsonb_build_object('from', o.value, 'to', n.value))
    from jsonb_each(new_record) n join jsonb_each(old_record) o using (key)
   where n.value is distinct from o.value and n.key not in ('version', 'updatedAt')
)`;

export async function updateRecord(db: Database, actor: Actor, def: ResourceDef, options: UpdateOptions): Promise<UpdateOutcome> {
  const entries = Object.entries(options.patch).filter(([, value]) => value !== undefined);
  const assignments = entries.map(([key, value]) => sql`${sql.identifier(column(def, key).column)} = ${typed(value, column(def, key).kind)}`);
  const current = entries.map(([key]) => sql.raw(`l.${column(def, key).column}`));
  const proposed = entries.map(([key, value]) => typed(value, column(def, key).kind));
  // Only a patch that really changes something is a write: a no-op keeps version and changeVersion.
  const changesSomething = entries.length > 0
    ? sql`(${sql.join(current, sql`, `)}, null) is distinct from (${sql.join(proposed, sql`, `)}, null)`
    : sql`false`;
  const rules = options.rules.map((r) => sql`(${r.holds}) as ${sql.identifier(r.name)}`);
  const rulesHold = options.rules.map((r) => sql`checks.${sql.identifier(r.name)}`);
  const table = sql.identifier(def.table);
  const row = await execute<{
    found: boolean;
    before: RecordJson | null;
    checks: Record<string, boolean> | null;
    refs: Record<string, boolean> | null;
    record: RecordJson | null;
    event: OpsEvent | null;
  }>(
    db,
    sql`with ${actorCtes(actor, def.manageScope)},
        ${lockedCte(def, options.id)},
        ${referenceCte(options.references, sql`auth, locked l`)},
        checks as (
          select (${options.ifMatch}::int is null or l.version = ${options.ifMatch}::int) as version_matches,
                 ${changesSomething} as changes_something
                 ${rules.length ? sql`, ${sql.join(rules, sql`, `)}` : sql``}
            from locked l
        ),
        changed as (
          update ${table} r
             set ${entries.length ? sql`${sql.join(assignments, sql`, `)},` : sql``}
                 version = r.version + 1, updated_at = now()
            from locked l, checks, refs
           where r.id = l.id and checks.version_matches and checks.changes_something
                 and ${referencesHold(options.references)}
                 ${rulesHold.length ? sql`and ${sql.join(rulesHold, sql` and `)}` : sql``}
          returning r.*
        ),
        ${bumpAndEvent(def, "updated", sql`(select ${changedFields} from (select (${projection(def, "l")})::jsonb as old_record, (${projection(def, "changed")})::jsonb as new_record from locked l) d)`)}
        select ${actorColumns},
               exists (select 1 from locked) as found,
               (select ${projection(def, "l")} from locked l) as before,
               (select row_to_json(checks) from checks) as checks,
               (select row_to_json(refs) from refs) as refs,
               (select ${projection(def, "changed")} from changed) as record,
               (select ${eventProjection("event")} from event) as event`,
  );
  assertAllowed(row, actor, def.manageScope);
  return {
    found: row.found,
    before: row.before,
    versionMatches: row.checks?.version_matches !== false,
    failedReferences: options.references.map((r) => r.field).filter((field) => row.refs?.[field] === false),
    failedRules: options.rules.map((r) => r.name).filter((name) => row.checks?.[name] === false),
    result: row.record
      ? committed(row.record, row.event)
      : row.before && row.checks?.changes_something === false
        ? { record: row.before, event: null }
        : null,
  };
}

export interface DeleteOptions {
  id: string;
  ifMatch: number | null;
  /** Dependants that forbid the delete, counted over the locked row `l`. */
  blockers: { name: string; count: SQL }[];
}

export interface DeleteOutcome {
  found: boolean;
  versionMatches: boolean;
  blockers: Record<string, number>;
  result: WriteResult<RecordJson> | null;
}

export async function deleteRecord(db: Database, actor: Actor, def: ResourceDef, options: DeleteOptions): Promise<DeleteOutcome> {
  const table = sql.identifier(def.table);
  const counts = options.blockers.map((b) => sql`(${b.count})::int as ${sql.identifier(b.name)}`);
  const none = options.blockers.map((b) => sql`checks.${sql.identifier(b.name)} = 0`);
  const row = await execute<{ found: boolean; checks: Record<string, number | boolean> | null; record: RecordJson | null; event: OpsEvent | null }>(
    db,
    sql`with ${actorCtes(actor, def.manageScope)},
        ${lockedCte(def, options.id)},
        checks as (
          select (${options.ifMatch}::int is null or l.version = ${options.ifMatch}::int) as version_matches
                 ${counts.length ? sql`, ${sql.join(counts, sql`, `)}` : sql``}
            from locked l
        ),
        changed as (
          delete from ${table} r using locked l, checks
           where r.id = l.id and checks.version_matches ${none.length ? sql`and ${sql.join(none, sql` and `)}` : sql``}
          returning r.*
        ),
        ${bumpAndEvent(def, "deleted", sql`null::jsonb`)}
        select ${actorColumns},
               exists (select 1 from locked) as found,
               (select row_to_json(checks) from checks) as checks,
               (select ${projection(def, "changed")} from changed) as record,
               (select ${eventProjection("event")} from event) as event`,
    true,
  );
  assertAllowed(row, actor, def.manageScope);
  const blockers = Object.fromEntries(options.blockers.map((b) => [b.name, Number(row.checks?.[b.name] ?? 0)]));
  return {
    found: row.found,
    versionMatches: row.checks?.version_matches !== false,
    blockers,
    result: row.record ? committed(row.record, row.event) : null,
  };
}
