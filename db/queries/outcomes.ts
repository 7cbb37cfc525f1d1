import { ApiError } from "../../functions/errors.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import type { CreateOutcome, DeleteOutcome, RecordJson, UpdateOutcome, WriteResult } from "./records.ts";

// Turning a statement's answer into the API's answer, in SPEC's order of checks:
// body (400) -> existence (404) -> state (412, then 409) -> the write.

const REFERENCE_MESSAGES: Record<string, string> = {
  projectId: "projectId does not name a project of this organisation",
  assigneeId: "assigneeId does not name an active person of this organisation",
  milestoneId: "milestoneId does not name a milestone of the task's project",
  ownerId: "ownerId does not name an active person of this organisation",
  reporterId: "reporterId does not name a person of this organisation",
};

function assertReferences(failed: string[]): void {
  const field = failed[0];
  if (field) throw new ApiError("invalid_reference", REFERENCE_MESSAGES[field] ?? `${field} does not exist`, { field });
}

export function notFound(noun: string): ApiError {
  return new ApiError("not_found", `${noun} not found`);
}

export function settleCreate(outcome: CreateOutcome, parentNoun = "parent", idempotency?: IdempotencyRequest): WriteResult<RecordJson> {
  if (outcome.replay) {
    if (outcome.replay.requestHash !== idempotency?.requestHash) {
      throw new ApiError("idempotency_mismatch", "this Idempotency-Key was used with a different request", { field: "Idempotency-Key" });
    }
    return { record: outcome.replay.record, event: null, replayed: true };
  }
  if (!outcome.parentFound) throw notFound(parentNoun);
  assertReferences(outcome.failedReferences);
  if (!outcome.result) throw new Error("insert returned no row although every check held");
  return outcome.result;
}

/** `rules` maps a failed rule to its error, given the record as it was. */
export function settleUpdate(
  outcome: UpdateOutcome,
  noun: string,
  rules: Record<string, (before: RecordJson) => ApiError> = {},
): WriteResult<RecordJson> {
  if (!outcome.found || !outcome.before) throw notFound(noun);
  assertReferences(outcome.failedReferences);
  if (!outcome.versionMatches) throw preconditionFailed(outcome.before.version);
  const rule = outcome.failedRules[0];
  if (rule) throw rules[rule]!(outcome.before);
  if (!outcome.result) throw new ApiError("conflict", `the ${noun} was changed by a concurrent request; retry`);
  return outcome.result;
}

export function settleDelete(outcome: DeleteOutcome, noun: string): WriteResult<RecordJson> {
  if (!outcome.found) throw notFound(noun);
  if (!outcome.versionMatches) throw new ApiError("precondition_failed", "If-Match does not match the current version");
  const blockers = Object.entries(outcome.blockers).filter(([, count]) => count > 0);
  if (blockers.length > 0) {
    const list = blockers.map(([name, count]) => `${count} ${inWords(name, count)}`).join(" and ");
    throw new ApiError("conflict", `the ${noun} still has ${list}; remove or move them first`, { dependants: Object.fromEntries(blockers) });
  }
  if (!outcome.result) throw new ApiError("conflict", `the ${noun} was changed by a concurrent request; retry`);
  return outcome.result;
}

/** A dependants key as prose: financialEntries -> "financial entries", or "financial entry" for one. */
function inWords(name: string, count: number): string {
  const words = name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
  return count === 1 ? words.replace(/ies$/, "y").replace(/s$/, "") : words;
}

function preconditionFailed(currentVersion: number): ApiError {
  return new ApiError("precondition_failed", "If-Match does not match the current version", { currentVersion });
}
