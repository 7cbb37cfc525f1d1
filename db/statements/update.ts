import { sql, type SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { OpsEvent } from "../../domain/events.ts";
import type { Database } from "../client.ts";
import { callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./caller.ts";
import { projection } from "./projection.ts";
import type { RecordOf, Resource, WritableOf } from "./resource.ts";
import type { CheckedField, RuleName, RuleViolations } from "./rules.ts";
import { runWrite } from "./sql.ts";
import { orgLockStatement } from "./caller.ts";
import {
  bumpAndEvent,
  changedFields,
  changeOfLocked,
  changesOf,
  changeSucceeded,
  committedEvent,
  committedOf,
  externalIdFree,
  failed,
  violationsOf,
  lockedCte,
  referenceCte,
  type Committed,
  type Reference,
  type Rule,
} from "./write-ctes.ts";

export interface UpdateOptions<R extends Resource> {
  id: string;
  patch: WritableOf<R>;
  ifMatch: number | null;
  references: Reference[];
  /** State rules over the resource's `locked` row and the patch (the task workflow); each must hold. */
  rules: Rule[];
  /** The checks read rows other writes change: see every write before this one (WriteStatement.lockFirst). */
  fresh?: boolean;
  /** CTEs appended to the statement after the change (auditCtes: the audit entry recording it, over `changed`). */
  audit?: SQL | undefined;
}

export interface UpdateOutcome<Json> {
  caller: CallerOutcome;
  /** The record as it was, or null when the caller's organisation has no such record. */
  before: Json | null;
  versionMatches: boolean;
  /** Whether the patch changes anything at all: a no-op keeps version and changeVersion. */
  changesSomething: boolean;
  failedReferences: CheckedField[];
  failedRules: RuleName[];
  /** What each failed rule with a `violation` reported (the cycle, the open blockers). */
  violations: Partial<RuleViolations>;
  /** The record and its event, when the update happened. */
  updated: ({ record: Json } & Committed) | null;
}

/**
 * Changes one record, locked, in one statement: its references, the If-Match version and the
 * rules are checked on the locked row; the change, the changeVersion bump and the event (with each
 * changed field's from and to) happen only if all hold and something really changes.
 */
export async function updateRecord<R extends Resource>(
  db: Database,
  actor: Actor,
  resource: R,
  options: UpdateOptions<R>,
): Promise<UpdateOutcome<RecordOf<R>>> {
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
    ctes: sql`${callerCtes(actor, resource.manageScope, { writes: true })},
        ${lockedCte(resource, options.id)},
        ${referenceCte(references, sql`auth, locked l`)},
        ${changeOfLocked(resource, { changes, ifMatch: options.ifMatch, rules: options.rules, references }, "changed")},
        ${bumpAndEvent(resource, "updated", changedFields(resource))}${options.audit ? sql`, ${options.audit}` : sql``}`,
    columns: sql`${callerColumns},
               (select ${projection(resource, "l")} from locked l) as before,
               (select row_to_json(checks) from checks) as checks,
               (select row_to_json(refs) from refs) as refs,
               (select ${projection(resource, "changed")} from changed) as record,
               ${committedEvent}`,
    succeeded: changeSucceeded(),
    answer: sql`coalesce(o.record, o.before)`,
    created: sql`false`,
    lockFirst: options.fresh ? orgLockStatement(actor) : undefined,
  });
  return {
    caller: callerOf(row),
    before: row.before,
    versionMatches: row.checks?.version_matches !== false,
    changesSomething: row.checks?.changes_something !== false,
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
