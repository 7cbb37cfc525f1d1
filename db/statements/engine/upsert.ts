import type { Actor } from "../../../domain/actor.ts";
import type { OpsEvent } from "../../../domain/events.ts";
import { uuidv7 } from "../../../domain/ids.ts";
import type { Database } from "../../client.ts";
import { callerColumns, callerCtes, callerOf, orgLockStatement, type CallerOutcome, type CallerRow } from "./caller.ts";
import { bumpAndEvent, committedOf, ownEventColumns, type Committed } from "./outbox.ts";
import type { RecordOf, Resource, WritableOf } from "./resource.ts";
import type { CheckedField, RuleName, ViolationsOf } from "./rules.ts";
import { sql } from "./sql-tag.ts";
import { runWrite } from "./sql.ts";
import {
  AFTER_VIEW,
  BEFORE_VIEW,
  changeOfLocked,
  lockedCte,
  recordViews,
  changesOf,
  changeSucceeded,
  fieldChanges,
  failed,
  violationsOf,
  referenceCte,
  referencesHold,
  type Reference,
  type Rule,
} from "./write-ctes.ts";

// PUT /v1/<resource>/by-external-id/{externalId}: one statement that changes the record with that
// external id (locked, as an update is) or, when there is none, creates it, as the create would.
// Two PUTs of one new external id at once: both find no record, both insert, and the unique index
// (org_id, external_id) lets one in; the other's insert does nothing (ON CONFLICT DO NOTHING), and
// its service runs the statement again, which now finds the record and changes it.

export interface UpsertOptions<R extends Resource, Rules extends RuleName = never> {
  externalId: string;
  /** The body as a create takes it: every field a new record is created with. */
  values: WritableOf<R>;
  /** Fields a record only gets when created (a task's projectId): an existing record must already have these values. Default none. */
  fixed?: readonly string[];
  /**
   * What an existing record is changed by, as a change takes it; default `values` without the
   * `fixed` fields. (An issue's differs: its resolvedAt follows the status on the locked row.)
   */
  patch?: WritableOf<R>;
  ifMatch: number | null;
  /** The create's checks. */
  create: { references: Reference[] };
  /** The change's checks, over the locked row `l`. */
  update: { references: Reference[]; rules: Rule<Rules>[] };
  /** The checks read rows other writes change: see every write before this one (WriteStatement.lockFirst). */
  fresh?: boolean;
}

/** An upsert's outcome; `Rules` are the rules its change checks, the only ones it can report as failed. */
export interface UpsertOutcome<Json, Rules extends RuleName = never> {
  caller: CallerOutcome;
  /** The record with the external id as it was; null when there was none. */
  before: Json | null;
  versionMatches: boolean;
  changesSomething: boolean;
  /** References of the branch taken (create's with no record, the change's otherwise) that do not hold. */
  failedReferences: CheckedField[];
  failedRules: Rules[];
  /** What each failed rule with a `violation` reported. */
  violations: ViolationsOf<Rules>;
  /** Create-only fields the existing record has other values for. */
  fixedDiffers: string[];
  written: ({ record: Json; created: boolean } & Committed) | null;
}

const NEW = "new:";
const EXISTING = "existing:";
const prefixed = (prefix: string, references: Reference[]) => references.map((r) => ({ ...r, field: prefix + r.field }));

/** The insert when no record has the external id (and no If-Match asked for one), with the create's references holding. */
function insertedCte(
  resource: Resource,
  inserts: ReturnType<typeof changesOf>,
  ifMatch: number | null,
  create: Parameters<typeof referencesHold>[0],
) {
  return sql`inserted as (
      insert into ${resource.table} (id, org_id, ${sql.join(
        inserts.map((c) => sql.identifier(c.column.column)),
        sql`, `,
      )})
      select ${uuidv7()}::uuid, auth.org_id, ${sql.join(
        inserts.map((c) => c.value),
        sql`, `,
      )}
        from auth, refs
       where not exists (select 1 from locked) and ${ifMatch}::int is null
             and ${referencesHold(create)}
      on conflict (org_id, external_id) do nothing
      returning *
  )`;
}

export async function upsertRecord<R extends Resource, Rules extends RuleName = never>(
  db: Database,
  actor: Actor,
  resource: R,
  options: UpsertOptions<R, Rules>,
): Promise<UpsertOutcome<RecordOf<R>, Rules>> {
  const values = options.values as Record<string, unknown>;
  const isFixed = (key: string) => (options.fixed ?? []).includes(key);
  const inserts = changesOf(resource, { ...values, externalId: options.externalId });
  const patch =
    (options.patch as Record<string, unknown> | undefined) ?? Object.fromEntries(Object.entries(values).filter(([key]) => !isFixed(key)));
  const fixed = changesOf(resource, Object.fromEntries(Object.entries(values).filter(([key]) => isFixed(key)))).map((c) => ({
    name: `fixed:${c.column.key}`,
    holds: sql`${sql.raw(`l.${c.column.column}`)} is not distinct from ${c.value}`,
  }));
  const patchChanges = changesOf(resource, patch);
  const [create, change] = [prefixed(NEW, options.create.references), prefixed(EXISTING, options.update.references)];
  const ifMatch = options.ifMatch;
  type Json = RecordOf<R>;
  const row = await runWrite<
    CallerRow & {
      before: Json | null;
      checks: Record<string, boolean> | null;
      refs: Record<string, boolean> | null;
      record: Json | null;
      event: OpsEvent | null;
      cascaded: OpsEvent[] | null;
      created: boolean;
    }
  >(db, {
    ctes: sql`${callerCtes(actor, resource.manageScope, { writes: true })},
        ${lockedCte(resource, { externalId: options.externalId })},
        ${referenceCte([...create, ...change], sql`auth left join locked l on true`)},
        ${changeOfLocked(resource, { changes: patchChanges, ifMatch, rules: [...options.update.rules, ...fixed], references: change }, "updated")},
        ${insertedCte(resource, inserts, ifMatch, create)},
        changed as (select * from updated union all select * from inserted),
        ${recordViews(resource, sql`(select id, org_id from locked union all select id, org_id from inserted) l`)},
        ${bumpAndEvent(
          resource,
          sql`case when exists (select 1 from inserted) then 'created' else 'updated' end`,
          sql`case when exists (select 1 from inserted) then null::jsonb else ${fieldChanges(resource, patchChanges)} end`,
          [],
          AFTER_VIEW,
        )}`,
    columns: sql`${callerColumns},
               ${BEFORE_VIEW} as before,
               (select row_to_json(checks) from checks) as checks,
               (select row_to_json(refs) from refs) as refs,
               ${AFTER_VIEW} as record,
               ${ownEventColumns},
               exists (select 1 from inserted) as created`,
    // As an update's success, with only the change's references counting when the record exists.
    succeeded: changeSucceeded(EXISTING),
    answer: sql`coalesce(o.record, o.before)`,
    created: sql`o.created`,
    lockFirst: options.fresh ? orgLockStatement(actor) : undefined,
  });
  const existing = row.before !== null;
  const branch = existing ? EXISTING : NEW;
  return {
    caller: callerOf(row),
    before: row.before,
    versionMatches: existing ? row.checks?.versionMatches !== false : ifMatch === null,
    changesSomething: row.checks?.changesSomething !== false,
    failedReferences: failed(
      (existing ? change : create).map((r) => r.field),
      row.refs,
    ).map((field) => field.slice(branch.length) as CheckedField),
    failedRules: failed(
      options.update.rules.map((r) => r.name),
      row.checks,
    ),
    violations: violationsOf(options.update.rules, row.checks),
    fixedDiffers: failed(
      fixed.map((r) => r.name),
      row.checks,
    ).map((name) => name.slice("fixed:".length)),
    written: row.record ? { record: row.record, ...committedOf(row), created: row.created } : null,
  };
}
