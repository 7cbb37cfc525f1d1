import type { CallerOutcome, Need } from "../db/statements/engine/caller.ts";
import type { CreateOutcome } from "../db/statements/engine/create.ts";
import type { DeleteOutcome } from "../db/statements/engine/delete.ts";
import type { IdempotencyRequest } from "../db/statements/engine/idempotency.ts";
import type { CheckedField, RuleName, RuleViolations } from "../db/statements/engine/rules.ts";
import type { UpdateOutcome } from "../db/statements/engine/update.ts";
import type { UpsertOutcome } from "../db/statements/engine/upsert.ts";
import { notFound, type DomainError } from "../domain/errors.ts";
import type { OpsEvent } from "../domain/events.ts";
import type { Scope } from "../domain/scopes.ts";
import type { ServiceContext } from "./context.ts";
import {
  callerRefusals,
  checkRefusal,
  concurrentChange,
  dependantsLeft,
  fixedFieldDiffers,
  idempotencyMismatch,
  nothingToMatch,
  versionMismatch,
} from "./refusals.ts";

/** Who is calling, and where the changeVersion a call observed goes (the answer's envelope). */
export type Settling = Pick<ServiceContext, "actor" | "observe">;

// Turning a statement's outcome into the service's answer or a domain error, in the order of
// checks every call follows: key -> scope -> input -> existence -> If-Match -> state -> the write.
// What each refusal says is in refusals.ts.

/** A committed (or replayed) write: the record, and the event it committed (null for a no-op or a replay). */
export interface WriteResult<Record> {
  record: Record;
  event: OpsEvent | null;
  /** Events of rows the write changed with its record (the comments deleted with their task), committed before `event`. */
  cascaded?: OpsEvent[];
  /** True when this is the stored first response to a repeated Idempotency-Key. */
  replayed?: boolean;
}

/**
 * The caller must exist and hold what the call needs: invalid_key (or, for a person, unauthorized),
 * then email_unverified (a person whose address the organisation requires confirmed), then
 * insufficient_scope (or insufficient_role).
 */
export function settleCaller(caller: CallerOutcome, ctx: Settling, need: Need): void {
  const { actor } = ctx;
  if (!caller.found) {
    if ("orgId" in actor) throw callerRefusals.organisationUnknown();
    if ("sessionToken" in actor) throw callerRefusals.sessionEnded();
    if ("accessTokenHash" in actor) throw callerRefusals.accessTokenUnknown();
    throw callerRefusals.keyUnknown();
  }
  if (caller.emailUnverified && !caller.allowed) throw callerRefusals.emailUnverified();
  // The organisation's changeVersion as the statement saw it: the snapshot the answer's data is from.
  if (caller.allowed || need === null) {
    ctx.observe?.(caller.changeVersion);
    return;
  }
  if (typeof need === "string") throw callerRefusals.scopeMissing(need);
  throw callerRefusals.roleMissing(need.roles);
}

function assertReferences(failed: CheckedField[], noun: string): void {
  const field = failed[0];
  if (field) throw checkRefusal(field, noun);
}

/** A committed write: the answer carries the changeVersion it produced (a write with no event, the current one). */
function produced<Result extends { event: OpsEvent | null }>(ctx: Settling, result: Result): Result {
  // The write's own event is its last.
  if (result.event) ctx.observe?.(result.event.changeVersion);
  return result;
}

/**
 * A stored first response for the request's Idempotency-Key: answered again if the request is the
 * one that made it, else 422 idempotency_mismatch.
 */
export function settleReplay<Record>(
  replay: { requestHash: string; record: Record; changeVersion: number | null },
  context: { ctx: Settling; idempotency?: IdempotencyRequest | undefined },
): WriteResult<Record> {
  if (replay.requestHash !== context.idempotency?.requestHash) throw idempotencyMismatch();
  // The first answer's changeVersion, when its write moved one.
  if (replay.changeVersion !== null) context.ctx.observe?.(replay.changeVersion);
  return { record: replay.record, event: null, replayed: true };
}

export function settleCreate<Record>(
  outcome: CreateOutcome<Record>,
  context: { ctx: Settling; scope: Scope; noun: string; parentNoun?: string; idempotency?: IdempotencyRequest | undefined },
): WriteResult<Record> {
  settleCaller(outcome.caller, context.ctx, context.scope);
  if (outcome.replay) return settleReplay(outcome.replay, context);
  if (!outcome.parentFound) throw notFound(context.parentNoun ?? "parent");
  assertReferences(outcome.failedReferences, context.noun);
  if (!outcome.created) throw new Error("insert returned no row although every check held");
  return produced(context.ctx, outcome.created);
}

export interface UpsertResult<Record> extends WriteResult<Record> {
  /** True when the record was created (201), false when an existing one was changed (200). */
  created: boolean;
}

/**
 * A PUT by external id: a new record is settled as a create would be, an existing one as a change.
 * Null when the statement lost a race with a concurrent create of the same external id (it
 * neither found the record nor could insert it): the caller runs it again.
 */
export function settleUpsert<Record extends { version: number }, Rules extends RuleName = never>(
  outcome: UpsertOutcome<Record, Rules>,
  context: { ctx: Settling; scope: Scope; noun: string; ifMatch: number | null } & RulesOf<RuleErrors<Record, Rules>, Rules>,
): UpsertResult<Record> | null {
  settleCaller(outcome.caller, context.ctx, context.scope);
  const before = outcome.before;
  if (!before) {
    if (context.ifMatch !== null) throw nothingToMatch(context.noun);
    assertReferences(outcome.failedReferences, context.noun);
    return outcome.written ? { ...produced(context.ctx, outcome.written), created: true } : null;
  }
  const fixed = outcome.fixedDiffers[0];
  if (fixed) throw fixedFieldDiffers(context.noun, fixed);
  return { ...settleUpdate({ ...outcome, updated: outcome.written }, context), created: false };
}

/**
 * What each rule a statement checks means when it fails, given the record as it was and what the
 * statement reported as the violation: one for every rule in `Rules`, so a rule a statement gains
 * is a compile error in each service settling it until it says what the failure means.
 */
export type RuleErrors<Record, Rules extends RuleName> = {
  [Name in Rules]: (before: Record, violation: RuleViolations[Name]) => DomainError;
};

/** `{ rules }` when the statement checks rules (each must have its error); none when it checks none. */
export type RulesOf<Errors, Rules extends RuleName> = [Rules] extends [never] ? { rules?: undefined } : { rules: Errors };

/** The error of the failed rule `rule`, with the violation the statement reported for it. */
function ruleError<Rules extends RuleName>(
  rules: { [Name in Rules]: (...args: never[]) => DomainError } | undefined,
  rule: Rules,
): (...args: unknown[]) => DomainError {
  // Every rule a statement can report has its error (RulesOf): `rules` is there whenever a rule failed.
  return rules![rule] as (...args: unknown[]) => DomainError;
}

/** `rules` maps a failed rule to its error, given the record as it was. */
export function settleUpdate<Record extends { version: number }, Rules extends RuleName = never>(
  outcome: UpdateOutcome<Record, Rules>,
  context: { ctx: Settling; scope: Scope; noun: string } & RulesOf<RuleErrors<Record, Rules>, Rules>,
): WriteResult<Record> {
  settleCaller(outcome.caller, context.ctx, context.scope);
  const before = outcome.before;
  if (!before) throw notFound(context.noun);
  assertReferences(outcome.failedReferences, context.noun);
  if (!outcome.versionMatches) throw versionMismatch({ currentVersion: before.version });
  const rule = outcome.failedRules[0];
  if (rule) throw ruleError<Rules>(context.rules, rule)(before, outcome.violations[rule] ?? null);
  if (outcome.updated) return produced(context.ctx, outcome.updated);
  // Nothing to change: a no-op answers the record as it is, with no event.
  if (!outcome.changesSomething) return { record: before, event: null };
  throw concurrentChange(context.noun);
}

/** What each rule a delete checks means when it fails: one for every rule in `Rules`. */
export type RemoveRuleErrors<Rules extends RuleName> = { [Name in Rules]: () => DomainError };

export function settleDelete<Record, Rules extends RuleName = never>(
  outcome: DeleteOutcome<Record, Rules>,
  context: { ctx: Settling; scope: Scope; noun: string } & RulesOf<RemoveRuleErrors<Rules>, Rules>,
): WriteResult<Record> {
  settleCaller(outcome.caller, context.ctx, context.scope);
  if (!outcome.found) throw notFound(context.noun);
  if (!outcome.versionMatches) throw versionMismatch();
  const rule = outcome.failedRules[0];
  if (rule) throw ruleError<Rules>(context.rules, rule)();
  const blockers = Object.entries(outcome.blockers).filter(([, count]) => count > 0);
  if (blockers.length > 0) throw dependantsLeft(context.noun, blockers);
  if (!outcome.deleted) throw concurrentChange(context.noun);
  return produced(context.ctx, outcome.deleted);
}
