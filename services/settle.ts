import type { CallerOutcome, Need } from "../db/statements/caller.ts";
import type { CreateOutcome } from "../db/statements/create.ts";
import type { DeleteOutcome } from "../db/statements/delete.ts";
import type { IdempotencyRequest } from "../db/statements/idempotency.ts";
import type { CheckedField, RuleName, RuleViolations } from "../db/statements/rules.ts";
import type { UpdateOutcome } from "../db/statements/update.ts";
import type { UpsertOutcome } from "../db/statements/upsert.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import type { OpsEvent } from "../domain/events.ts";
import { MAX_COMMENTS_PER_TASK, MAX_SUBTASKS } from "../domain/limits.ts";
import { MAX_TASK_DEPTH } from "../domain/records.ts";
import type { Scope } from "../domain/scopes.ts";
import type { ServiceContext } from "./context.ts";

/** Who is calling, and where the changeVersion a call observed goes (the answer's envelope). */
export type Settling = Pick<ServiceContext, "actor" | "observe">;

// Turning a statement's outcome into the service's answer or a domain error, in the order of
// checks every call follows: key -> scope -> input -> existence -> If-Match -> state -> the write.

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
 * then insufficient_scope (or insufficient_role).
 */
export function settleCaller(caller: CallerOutcome, ctx: Settling, need: Need): void {
  const { actor } = ctx;
  if (!caller.found) {
    if ("orgId" in actor) throw new DomainError("not_found", "organisation not found", { field: "orgId" });
    if ("sessionToken" in actor) throw new DomainError("unauthorized", "the session has ended, or its organisation no longer counts you as a member: sign in again");
    throw new DomainError("invalid_key", "the API key is unknown or has been revoked");
  }
  // The organisation's changeVersion as the statement saw it: the snapshot the answer's data is from.
  if (caller.allowed || need === null) {
    ctx.observe?.(caller.changeVersion);
    return;
  }
  if (typeof need === "string") throw new DomainError("insufficient_scope", `this call needs the ${need} scope`, { scope: need });
  throw new DomainError("insufficient_role", `this needs the role ${need.roles.join(" or ")} in the organisation`, { roles: [...need.roles] });
}

/** A taken externalId: another record of the resource in the organisation already has it. */
export const externalIdTaken = (noun: string) =>
  new DomainError("conflict", `another ${noun} of this organisation already has this externalId`, { field: "externalId" });

/** Checks of a value another record already has: each fails as 409 conflict, not as a reference. */
const TAKEN = {
  externalId: externalIdTaken,
  email: () => new DomainError("conflict", "a person with this email already exists in the organisation", { field: "email" }),
  name: (noun: string) => new DomainError("conflict", `another ${noun} of this organisation has this name`, { field: "name" }),
  // A precondition of a task's parent that is not a reference: the parent is too deep already.
  parentDepth: () =>
    new DomainError("conflict", `subtasks nest at most ${MAX_TASK_DEPTH} levels: the parent is at level ${MAX_TASK_DEPTH} already`, { field: "parentId", maxDepth: MAX_TASK_DEPTH }),
  // What one record may hold (domain/limits.ts): the parent, or the task, is full.
  parentSubtasks: () =>
    new DomainError("conflict", `a task has at most ${MAX_SUBTASKS} subtasks, and the parent has ${MAX_SUBTASKS} already: move some elsewhere first`, {
      field: "parentId",
      maxSubtasks: MAX_SUBTASKS,
    }),
  taskComments: () =>
    new DomainError("conflict", `a task holds at most ${MAX_COMMENTS_PER_TASK} comments, and this one has ${MAX_COMMENTS_PER_TASK} already: delete some first`, {
      field: "taskId",
      maxComments: MAX_COMMENTS_PER_TASK,
    }),
} satisfies { [field in CheckedField]?: (noun: string) => DomainError };

type TakenField = keyof typeof TAKEN;
const isTaken = (field: CheckedField): field is TakenField => field in TAKEN;

/** Every other checked field is a reference: 400 invalid_reference, with what it had to name. */
const REFERENCE_MESSAGES: Record<Exclude<CheckedField, TakenField>, string> = {
  projectId: "projectId does not name a project of this organisation",
  assigneeId: "assigneeId does not name an active person of this organisation",
  milestoneId: "milestoneId does not name a milestone of the task's project",
  ownerId: "ownerId does not name an active person of this organisation",
  reporterId: "reporterId does not name a person of this organisation",
  parentId: "parentId does not name a task of the task's project",
  labelIds: "labelIds names a label that is not one of this organisation's",
  blockedBy: "blockedBy does not name a task of this organisation",
  taskId: "taskId does not name a task of this organisation",
};

function assertReferences(failed: CheckedField[], noun: string): void {
  const field = failed[0];
  if (!field) return;
  if (isTaken(field)) throw TAKEN[field](noun);
  throw new DomainError("invalid_reference", REFERENCE_MESSAGES[field], { field });
}

/** A committed write: the answer carries the changeVersion it produced (a write with no event, the current one). */
function produced<Result extends { event: OpsEvent | null }>(ctx: Settling, result: Result): Result {
  // The write's own event is its last.
  if (result.event) ctx.observe?.(result.event.changeVersion);
  return result;
}

const concurrentChange = (noun: string) => new DomainError("conflict", `the ${noun} was changed by a concurrent request; retry`);

export function settleCreate<Record>(
  outcome: CreateOutcome<Record>,
  context: { ctx: Settling; scope: Scope; noun: string; parentNoun?: string; idempotency?: IdempotencyRequest | undefined },
): WriteResult<Record> {
  settleCaller(outcome.caller, context.ctx, context.scope);
  if (outcome.replay) {
    if (outcome.replay.requestHash !== context.idempotency?.requestHash) {
      throw new DomainError("idempotency_mismatch", "this Idempotency-Key was used with a different request", { field: "Idempotency-Key" });
    }
    // The first answer's changeVersion, when its write moved one.
    if (outcome.replay.changeVersion !== null) context.ctx.observe?.(outcome.replay.changeVersion);
    return { record: outcome.replay.record, event: null, replayed: true };
  }
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
export function settleUpsert<Record extends { version: number }>(
  outcome: UpsertOutcome<Record>,
  context: { ctx: Settling; scope: Scope; noun: string; ifMatch: number | null; rules?: RuleErrors<Record> },
): UpsertResult<Record> | null {
  settleCaller(outcome.caller, context.ctx, context.scope);
  const before = outcome.before;
  if (!before) {
    if (context.ifMatch !== null) {
      throw new DomainError("precondition_failed", `If-Match names a version, but no ${context.noun} has this externalId yet`, { field: "If-Match" });
    }
    assertReferences(outcome.failedReferences, context.noun);
    return outcome.written ? { ...produced(context.ctx, outcome.written), created: true } : null;
  }
  const fixed = outcome.fixedDiffers[0];
  if (fixed) {
    throw new DomainError("conflict", `the ${context.noun} with this externalId has another ${fixed}; ${fixed} is set when a ${context.noun} is created and cannot change`, {
      field: fixed,
    });
  }
  return { ...settleUpdate({ ...outcome, updated: outcome.written }, context), created: false };
}

/** What each rule's failure means, given the record as it was and what the statement reported as the violation. */
export type RuleErrors<Record> = { [Name in RuleName]?: (before: Record, violation: RuleViolations[Name]) => DomainError };

/**
 * The error of the failed rule `rule`. (Its name is known to the compiler only as some rule's, so
 * its error is called with that rule's violation as the statement reported it.)
 */
const ruleError = <Record>(rules: RuleErrors<Record> | undefined, rule: RuleName) => rules?.[rule] as ((before: Record, violation: unknown) => DomainError) | undefined;

/** `rules` maps a failed rule to its error, given the record as it was. */
export function settleUpdate<Record extends { version: number }>(
  outcome: UpdateOutcome<Record>,
  context: { ctx: Settling; scope: Scope; noun: string; rules?: RuleErrors<Record> },
): WriteResult<Record> {
  settleCaller(outcome.caller, context.ctx, context.scope);
  const before = outcome.before;
  if (!before) throw notFound(context.noun);
  assertReferences(outcome.failedReferences, context.noun);
  if (!outcome.versionMatches) {
    throw new DomainError("precondition_failed", "If-Match does not match the current version", { currentVersion: before.version });
  }
  const rule = outcome.failedRules[0];
  if (rule) throw ruleError(context.rules, rule)!(before, outcome.violations[rule] ?? null);
  if (outcome.updated) return produced(context.ctx, outcome.updated);
  // Nothing to change: a no-op answers the record as it is, with no event.
  if (!outcome.changesSomething) return { record: before, event: null };
  throw concurrentChange(context.noun);
}

export function settleDelete<Record>(
  outcome: DeleteOutcome<Record>,
  context: { ctx: Settling; scope: Scope; noun: string; rules?: { [name in RuleName]?: () => DomainError } },
): WriteResult<Record> {
  settleCaller(outcome.caller, context.ctx, context.scope);
  if (!outcome.found) throw notFound(context.noun);
  if (!outcome.versionMatches) throw new DomainError("precondition_failed", "If-Match does not match the current version");
  const rule = outcome.failedRules[0];
  if (rule) throw context.rules![rule]!();
  const blockers = Object.entries(outcome.blockers).filter(([, count]) => count > 0);
  if (blockers.length > 0) {
    const list = blockers.map(([name, count]) => `${count} ${inWords(name, count)}`).join(" and ");
    throw new DomainError("conflict", `the ${context.noun} still has ${list}; remove or move them first`, { dependants: Object.fromEntries(blockers) });
  }
  if (!outcome.deleted) throw concurrentChange(context.noun);
  return produced(context.ctx, outcome.deleted);
}

/** A dependants key as prose: financialEntries -> "financial entries", or "financial entry" for one. */
function inWords(name: string, count: number): string {
  const words = name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
  return count === 1 ? words.replace(/ies$/, "y").replace(/s$/, "") : words;
}
