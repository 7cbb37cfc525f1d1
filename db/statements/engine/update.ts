import type { SQL } from "drizzle-orm";
import type { Actor } from "../../../domain/actor.ts";
import type { OpsEvent } from "../../../domain/events.ts";
import type { Database } from "../../client.ts";
import { callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./caller.ts";
import { orgLockStatement } from "./caller.ts";
import { bumpAndEvent, committedOf, ownEventColumns, type Committed } from "./outbox.ts";
import type { RecordOf, Resource, WritableOf } from "./resource.ts";
import type { CheckedField, RuleName, ViolationsOf } from "./rules.ts";
import { sql } from "./sql-tag.ts";
import { runWrite } from "./sql.ts";
import {
  AFTER_VIEW,
  BEFORE_VIEW,
  changeOfLocked,
  changesOf,
  changeSucceeded,
  fieldChanges,
  externalIdFree,
  failed,
  violationsOf,
  lockedCte,
  recordViews,
  referenceCte,
  type Reference,
  type Rule,
} from "./write-ctes.ts";

export interface UpdateOptions<R extends Resource, Rules extends RuleName = never> {
  id: string;
  patch: WritableOf<R>;
  ifMatch: number | null;
  references: Reference[];
  /** State rules over the resource's `locked` row and the patch (the task workflow); each must hold. */
  rules: Rule<Rules>[];
  /** The checks read rows other writes change: see every write before this one (WriteStatement.lockFirst). */
  fresh?: boolean;
  /** CTEs appended to the statement after the change (auditCtes: the audit entry recording it, over `changed`). */
  audit?: SQL | undefined;
}

/** An update's outcome; `Rules` are the rules it checks, the only ones it can report as failed. */
export interface UpdateOutcome<Json, Rules extends RuleName = never> {
  caller: CallerOutcome;
  /** The record as it was, or null when the caller's organisation has no such record. */
  before: Json | null;
  versionMatches: boolean;
  /** Whether the patch changes anything at all: a no-op keeps version and changeVersion. */
  changesSomething: boolean;
  failedReferences: CheckedField[];
  failedRules: Rules[];
  /** What each failed rule with a `violation` reported (the cycle, the open blockers). */
  violations: ViolationsOf<Rules>;
  /** The record and its event, when the update happened. */
  updated: ({ record: Json } & Committed) | null;
}

/**
 * Changes one record, locked, in one statement: its references, the If-Match version and the
 * rules are checked on the locked row; the change, the changeVersion bump and the event (with each
 * changed field's from and to) happen only if all hold and something really changes.
 */
export async function updateRecord<R extends Resource, Rules extends RuleName = never>(
  db: Database,
  actor: Actor,
  resource: R,
  options: UpdateOptions<R, Rules>,
): Promise<UpdateOutcome<RecordOf<R>, Rules>> {
  const changes = changesOf(resource, options.patch as Record<string, unknown>);
  const references = [
    ...options.references,
    ...externalIdFree(resource, (options.patch as { externalId?: unknown }).externalId, sql`(select id from locked)`),
  ];
  type Json = RecordOf<R>;
  const row = await runWrite<
    CallerRow & {
      before: Json | null;
      checks: Record<string, boolean | unknown> | null;
      refs: Record<string, boolean> | null;
      record: Json | null;
      event: OpsEvent | null;
      cascaded: OpsEvent[] | null;
    }
  >(db, {
    ctes: sql`${callerCtes(actor, resource.manageScope, { writes: true, audited: options.audit !== undefined })},
        ${lockedCte(resource, options.id)},
        ${references.length ? sql`${referenceCte(references, sql`auth, locked l`)},` : sql``}
        ${changeOfLocked(resource, { changes, ifMatch: options.ifMatch, rules: options.rules, references }, "changed")},
        ${recordViews(resource, sql`locked l`)},
        ${bumpAndEvent(resource, "updated", fieldChanges(resource, changes), [], AFTER_VIEW)}${options.audit ? sql`, ${options.audit}` : sql``}`,
    columns: sql`${callerColumns},
               ${BEFORE_VIEW} as before,
               (select row_to_json(checks) from checks) as checks,
               ${references.length ? sql`(select row_to_json(refs) from refs)` : sql`null::json`} as refs,
               ${AFTER_VIEW} as record,
               ${ownEventColumns}`,
    succeeded: changeSucceeded(),
    answer: sql`coalesce(o.record, o.before)`,
    created: sql`false`,
    lockFirst: options.fresh ? orgLockStatement(actor) : undefined,
  });
  return {
    caller: callerOf(row),
    before: row.before,
    versionMatches: row.checks?.versionMatches !== false,
    changesSomething: row.checks?.changesSomething !== false,
    failedReferences: failed(
      references.map((r) => r.field),
      row.refs,
    ),
    failedRules: failed(
      options.rules.map((r) => r.name),
      row.checks as Record<string, boolean>,
    ),
    violations: violationsOf(options.rules, row.checks),
    updated: row.record ? { record: row.record, ...committedOf(row) } : null,
  };
}
