import type { SQL } from "drizzle-orm";
import type { Actor } from "../../../domain/actor.ts";
import type { OpsEvent } from "../../../domain/events.ts";
import { CASCADE_RECORDS } from "../../../domain/limits.ts";
import type { Database } from "../../client.ts";
import { callerColumns, callerCtes, callerOf, orgLockStatement, type CallerOutcome, type CallerRow } from "./caller.ts";
import { bumpAndEvent, committedEvent, committedOf, type Cascade, type Committed } from "./outbox.ts";
import { projection } from "./projection.ts";
import { requestBudget } from "./request-budgets.ts";
import type { RecordOf, Resource } from "./resource.ts";
import { RULES, type RuleName } from "./rules.ts";
import { sql } from "./sql-tag.ts";
import { runWrite } from "./sql.ts";
import { failed, lockedCte, ruleColumns, type Rule } from "./write-ctes.ts";

export interface DeleteOptions<Rules extends RuleName = never, Cascades extends Cascade[] | undefined = undefined> {
  id: string;
  ifMatch: number | null;
  /** Dependants that forbid the delete, each a count over the resource's `locked` row. */
  blockers: { name: string; count: SQL }[];
  /** Rules over the locked row (who may delete a comment); each must hold. */
  rules?: Rule<Rules>[];
  /**
   * What goes with the record, each with its events (the comments of a task; the task gone from
   * others' blockedBy), at most what the request has left of CASCADE_RECORDS (RULES.cascade_records).
   */
  cascades?: Cascades;
  /** The cascades or checks read rows other writes change: see every write before this one (WriteStatement.lockFirst). */
  fresh?: boolean;
  /** CTEs appended to the statement after the change (auditCtes: the audit entry recording it, over `changed`). */
  audit?: SQL | undefined;
}

/**
 * A delete's outcome; `Rules` are the rules it checks, the only ones it can report as failed
 * (its own, and cascade_records when it has cascades).
 */
export interface DeleteOutcome<Json, Rules extends RuleName = never> {
  caller: CallerOutcome;
  found: boolean;
  versionMatches: boolean;
  /** How many of each dependant still point at the record. */
  blockers: Record<string, number>;
  failedRules: Rules[];
  /** The record as it was and its event, when the delete happened. */
  deleted: ({ record: Json } & Committed) | null;
}

/** What `cascade_records` reports when the cascades would change more records than the request has left. */
export type CascadeViolation = { records: number; left: number };

const cascadeRecords = requestBudget("cascade_records", CASCADE_RECORDS);

/**
 * `cascade_records`: what the cascades will change fits in what the request has left of
 * CASCADE_RECORDS, each counted no further than that; the violation is `{ records, left }`. The
 * records are counted as spent whether or not the delete happens: a refused delete ends its
 * request, or its batch.
 */
function cascadeBudget(cascades: Cascade[]): Rule<typeof RULES.cascade_records> {
  const upTo = sql`c.remaining + 1`;
  return {
    name: RULES.cascade_records,
    // Each step fenced (offset 0), so that what is left is read once, before the spending.
    violation: sql`(select case when n.records > c.remaining then jsonb_build_object('records', n.records, 'left', c.remaining) end
        from (select ${cascadeRecords.left} as remaining offset 0) c
        cross join lateral (select ${sql.join(
          cascades.map((cascade) => sql`(${cascade.count(upTo)})`),
          sql` + `,
        )} as records offset 0) n
        cross join lateral (select ${cascadeRecords.spendTo(sql`${cascadeRecords.limit} - c.remaining + n.records`)} offset 0) spent)`,
  };
}

/** The rules a delete reports: its own, and cascade_records when it takes records with it. */
export type DeleteRules<Rules extends RuleName, Cascades extends Cascade[] | undefined> =
  Rules | (Cascades extends Cascade[] ? typeof RULES.cascade_records : never);

export async function deleteRecord<R extends Resource, Rules extends RuleName = never, Cascades extends Cascade[] | undefined = undefined>(
  db: Database,
  actor: Actor,
  resource: R,
  options: DeleteOptions<Rules, Cascades>,
): Promise<DeleteOutcome<RecordOf<R>, DeleteRules<Rules, Cascades>>> {
  const counts = options.blockers.map((b) => sql`(${b.count})::int as ${sql.identifier(b.name)}`);
  const rules: Rule<DeleteRules<Rules, Cascades>>[] = [
    ...(options.rules ?? []),
    // cascade_records is among DeleteRules exactly when there are cascades, which tsc cannot see through the generic.
    ...(options.cascades?.length ? [cascadeBudget(options.cascades) as Rule<DeleteRules<Rules, Cascades>>] : []),
  ];
  const ruleChecks = ruleColumns(rules);
  const none = [
    ...options.blockers.map((b) => sql`checks.${sql.identifier(b.name)} = 0`),
    ...rules.map((r) => sql`checks.${sql.identifier(r.name)}`),
  ];
  const row = await runWrite<
    CallerRow & {
      found: boolean;
      checks: Record<string, number | boolean> | null;
      record: RecordOf<R> | null;
      event: OpsEvent | null;
      cascaded: OpsEvent[] | null;
    }
  >(db, {
    ctes: sql`${callerCtes(actor, resource.manageScope, { writes: true, audited: options.audit !== undefined })},
        ${lockedCte(resource, options.id)},
        checks as (
          select (${options.ifMatch}::int is null or l.version = ${options.ifMatch}::int) as "versionMatches"
                 ${counts.length ? sql`, ${sql.join(counts, sql`, `)}` : sql``} ${ruleChecks.columns}
            from locked l${ruleChecks.laterals}
        ),
        changed as (
          delete from ${resource.table} r using locked l, checks
           where r.id = l.id and checks."versionMatches" ${none.length ? sql`and ${sql.join(none, sql` and `)}` : sql``}
          returning r.*
        ),
        ${bumpAndEvent(resource, "deleted", sql`null::jsonb`, options.cascades)}${options.audit ? sql`, ${options.audit}` : sql``}`,
    columns: sql`${callerColumns},
               exists (select 1 from locked) as found,
               (select row_to_json(checks) from checks) as checks,
               (select ${projection(resource, "changed")} from changed) as record,
               ${committedEvent}`,
    succeeded: sql`o.record is not null`,
    answer: sql`o.record`,
    created: sql`false`,
    lockFirst: options.fresh ? orgLockStatement(actor) : undefined,
  });
  return {
    caller: callerOf(row),
    found: row.found,
    versionMatches: row.checks?.versionMatches !== false,
    blockers: Object.fromEntries(options.blockers.map((b) => [b.name, Number(row.checks?.[b.name] ?? 0)])),
    failedRules: failed(
      rules.map((r) => r.name),
      row.checks,
    ),
    deleted: row.record ? { record: row.record, ...committedOf(row) } : null,
  };
}
