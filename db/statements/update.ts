import { sql } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { OpsEvent } from "../../domain/events.ts";
import type { Database } from "../client.ts";
import { callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./caller.ts";
import { parseEvent } from "./events.ts";
import { projection } from "./projection.ts";
import type { RecordOf, Resource, WritableOf } from "./resource.ts";
import { runOne } from "./sql.ts";
import { bumpAndEvent, changedFields, changesOf, committedEvent, failed, lockedCte, referenceCte, referencesHold, type Reference, type Rule } from "./write-ctes.ts";

export interface UpdateOptions<R extends Resource> {
  id: string;
  patch: WritableOf<R>;
  ifMatch: number | null;
  references: Reference[];
  /** State rules over the resource's `locked` row and the patch (the task workflow); each must hold. */
  rules: Rule[];
}

export interface UpdateOutcome<Json> {
  caller: CallerOutcome;
  /** The record as it was, or null when the caller's organisation has no such record. */
  before: Json | null;
  versionMatches: boolean;
  /** Whether the patch changes anything at all: a no-op keeps version and changeVersion. */
  changesSomething: boolean;
  failedReferences: string[];
  failedRules: string[];
  /** The record and its event, when the update happened. */
  updated: { record: Json; event: OpsEvent | null } | null;
}

/**
 * Changes one record, locked, in one statement: its references, the If-Match version and the
 * rules are checked on the locked row; the change, the changeVersion bump and the event (with each
 * changed field's from and to) happen only if all hold and something really changes.
 */
export async function updateRecord<R extends Resource>(db: Database, actor: Actor, resource: R, options: UpdateOptions<R>): Promise<UpdateOutcome<RecordOf<R>>> {
  const changes = changesOf(resource, options.patch as Record<string, unknown>);
  const current = changes.map((c) => sql.raw(`l.${c.column.column}`));
  const changesSomething = changes.length
    ? sql`(${sql.join(current, sql`, `)}, null) is distinct from (${sql.join(
        changes.map((c) => c.value),
        sql`, `,
      )}, null)`
    : sql`false`;
  const rules = options.rules.map((r) => sql`(${r.holds}) as ${sql.identifier(r.name)}`);
  const rulesHold = options.rules.map((r) => sql`checks.${sql.identifier(r.name)}`);
  const assignments = changes.map((c) => sql`${sql.identifier(c.column.column)} = ${c.value},`);
  type Json = RecordOf<R>;
  const row = await runOne<
    CallerRow & {
      before: Json | null;
      checks: Record<string, boolean> | null;
      refs: Record<string, boolean> | null;
      record: Json | null;
      event: OpsEvent | null;
    }
  >(
    db,
    sql`with ${callerCtes(actor, resource.manageScope)},
        ${lockedCte(resource, options.id)},
        ${referenceCte(options.references, sql`auth, locked l`)},
        checks as (
          select (${options.ifMatch}::int is null or l.version = ${options.ifMatch}::int) as version_matches,
                 ${changesSomething} as changes_something
                 ${rules.length ? sql`, ${sql.join(rules, sql`, `)}` : sql``}
            from locked l
        ),
        changed as (
          update ${sql.identifier(resource.name)} r
             set ${sql.join(assignments, sql` `)} version = r.version + 1, updated_at = now()
            from locked l, checks, refs
           where r.id = l.id and checks.version_matches and checks.changes_something
                 and ${referencesHold(options.references)}
                 ${rulesHold.length ? sql`and ${sql.join(rulesHold, sql` and `)}` : sql``}
          returning r.*
        ),
        ${bumpAndEvent(resource, "updated", changedFields(resource))}
        select ${callerColumns},
               (select ${projection(resource, "l")} from locked l) as before,
               (select row_to_json(checks) from checks) as checks,
               (select row_to_json(refs) from refs) as refs,
               (select ${projection(resource, "changed")} from changed) as record,
               ${committedEvent}`,
  );
  return {
    caller: callerOf(row),
    before: row.before,
    versionMatches: row.checks?.version_matches !== false,
    changesSomething: row.checks?.changes_something !== false,
    failedReferences: failed(
      options.references.map((r) => r.field),
      row.refs,
    ),
    failedRules: failed(
      options.rules.map((r) => r.name),
      row.checks,
    ),
    updated: row.record ? { record: row.record, event: row.event && parseEvent(row.event) } : null,
  };
}
