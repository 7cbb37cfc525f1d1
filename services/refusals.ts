import { RULES, type CheckedField } from "../db/statements/engine/rules.ts";
import { DomainError } from "../domain/errors.ts";
import { CASCADE_RECORDS, MAX_CHECKLIST_ITEMS_PER_TASK, MAX_COMMENTS_PER_TASK, MAX_SUBTASKS } from "../domain/limits.ts";
import { OAuthError, resourcesOf } from "../domain/oauth.ts";
import { MAX_TASK_DEPTH } from "../domain/records.ts";
import type { Scope } from "../domain/scopes.ts";

// The refusals of a write, each written once, whichever check finds it: the statement's own
// (settle.ts, in the order every call follows) or, in a race the statement could not see, the
// database's constraint (constraint-errors.ts), which answers what the statement would have.
// The errors of each resource's rules over its locked row are beside the resource's service.

/** The caller: unknown, or short of what the call needs. */
export const callerRefusals = {
  organisationUnknown: () => new DomainError("not_found", "organisation not found", { field: "orgId" }),
  sessionEnded: () =>
    new DomainError("unauthorized", "the session has ended, or its organisation no longer counts you as a member: sign in again"),
  keyUnknown: () => new DomainError("invalid_key", "the API key is unknown or has been revoked"),
  accessTokenUnknown: () => new DomainError("invalid_key", "the access token is unknown, expired or revoked"),
  /** A write with the session cookie from another origin (or naming none): CSRF. */
  crossSite: () => new DomainError("cross_site_request", "a write with the session cookie must come from a page of this origin"),
  scopeMissing: (scope: Scope) => new DomainError("insufficient_scope", `this call needs the ${scope} scope`, { scope }),
  /** The organisation requires a confirmed address, and the person's (or the one an application acts for) is not. */
  emailUnverified: () =>
    new DomainError(
      "email_unverified",
      "this organisation requires a confirmed email address: follow the link mailed to you, or ask for another with POST /auth/send-verification-email { email } (the console offers it)",
    ),
  roleMissing: (roles: readonly string[]) =>
    new DomainError("insufficient_role", `this needs the role ${roles.join(" or ")} in the organisation`, { roles: [...roles] }),
};

/** The OAuth endpoints' refusals that more than one check answers (RFC 6749 §5.2). */
export const oauthRefusals = {
  clientUnauthenticated: () => new OAuthError("invalid_client", "the client could not be authenticated"),
  basicMalformed: () => new OAuthError("invalid_client", "the Basic credentials are malformed"),
  notAScope: (word: string) => new OAuthError("invalid_scope", `${word.slice(0, 100)} is not a scope`),
  grantEnded: () => new OAuthError("invalid_grant", "the grant has been revoked, or the application uninstalled"),
  /** RFC 8707: a resource that is none of the service's (the origin, or <origin>/mcp), compared as URLs. */
  foreignResource: (origin?: string) =>
    new OAuthError(
      "invalid_target",
      origin ? `resource must be ${resourcesOf(origin).join(" or ")}` : "resource names none of this service's resources",
    ),
  tooManyFrom: (what: string, retryAfter: number) =>
    new OAuthError("too_many_requests", `too many ${what} from this address; retry in ${retryAfter} s`, retryAfter),
};

export const idempotencyMismatch = () =>
  new DomainError("idempotency_mismatch", "this Idempotency-Key was used with a different request", { field: "Idempotency-Key" });

/** If-Match names another version than the record's (a change answers the current one). */
export const versionMismatch = (details: { currentVersion?: number } = {}) =>
  new DomainError("precondition_failed", "If-Match does not match the current version", details);

/** A PUT by external id with If-Match, and no record with that externalId to match. */
export const nothingToMatch = (noun: string) =>
  new DomainError("precondition_failed", `If-Match names a version, but no ${noun} has this externalId yet`, { field: "If-Match" });

/** A PUT by external id naming another value of a field set at creation (a milestone's project). */
export const fixedFieldDiffers = (noun: string, field: string) =>
  new DomainError(
    "conflict",
    `the ${noun} with this externalId has another ${field}; ${field} is set when a ${noun} is created and cannot change`,
    { field },
  );

/** Another request changed the record between the statement's read and its write (or Postgres could not order the two). */
export const concurrentChange = (noun = "record") => new DomainError("conflict", `the ${noun} was changed by a concurrent request; retry`);

/** A taken externalId: another record of the resource in the organisation already has it. */
const externalIdTaken = (noun: string) =>
  new DomainError("conflict", `another ${noun} of this organisation already has this externalId`, { field: "externalId" });

/** Checks of a value another record already has: each fails as 409 conflict, not as a reference. */
const TAKEN = {
  externalId: externalIdTaken,
  email: () => new DomainError("conflict", "a person with this email already exists in the organisation", { field: "email" }),
  name: (noun: string) => new DomainError("conflict", `another ${noun} of this organisation has this name`, { field: "name" }),
  // A precondition of a task's parent that is not a reference: the parent is too deep already.
  parentDepth: () =>
    new DomainError("conflict", `subtasks nest at most ${MAX_TASK_DEPTH} levels: the parent is at level ${MAX_TASK_DEPTH} already`, {
      field: "parentId",
      maxDepth: MAX_TASK_DEPTH,
    }),
  // What one record may hold (domain/limits.ts): the parent, or the task, is full.
  parentSubtasks: () =>
    new DomainError(
      "conflict",
      `a task has at most ${MAX_SUBTASKS} subtasks, and the parent has ${MAX_SUBTASKS} already: move some elsewhere first`,
      {
        field: "parentId",
        maxSubtasks: MAX_SUBTASKS,
      },
    ),
  taskComments: () =>
    new DomainError(
      "conflict",
      `a task holds at most ${MAX_COMMENTS_PER_TASK} comments, and this one has ${MAX_COMMENTS_PER_TASK} already: delete some first`,
      {
        field: "taskId",
        maxComments: MAX_COMMENTS_PER_TASK,
      },
    ),
  taskChecklistItems: () =>
    new DomainError(
      "conflict",
      `a task's checklist holds at most ${MAX_CHECKLIST_ITEMS_PER_TASK} items, and this one has ${MAX_CHECKLIST_ITEMS_PER_TASK} already: delete some first`,
      {
        field: "taskId",
        maxChecklistItems: MAX_CHECKLIST_ITEMS_PER_TASK,
      },
    ),
  // Not a taken value but what the organisation may keep: its files' quota (docs/attachments.md).
  size: () =>
    new DomainError("payload_too_large", "the organisation's files would exceed its quota: delete some first", {
      field: "size",
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

/** The refusal of a failed check named after a field: a value taken, a record full, or a reference to nothing. */
export function checkRefusal(field: CheckedField, noun: string): DomainError {
  if (isTaken(field)) return TAKEN[field](noun);
  return new DomainError("invalid_reference", REFERENCE_MESSAGES[field], { field });
}

/** A delete refused while records still hang on the record: how many of each, by name (financialEntries: 2). */
export function dependantsLeft(noun: string, dependants: [name: string, count: number][]): DomainError {
  const list = dependants.map(([name, count]) => `${count} ${inWords(name, count)}`).join(" and ");
  return new DomainError("conflict", `the ${noun} still has ${list}; remove or move them first`, {
    dependants: Object.fromEntries(dependants),
  });
}

/** A dependants key as prose: financialEntries -> "financial entries", or "financial entry" for one. */
function inWords(name: string, count: number): string {
  const words = name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
  return count === 1 ? words.replace(/ies$/, "y").replace(/s$/, "") : words;
}

/** The races only a constraint sees, beyond the checks above: what the rules and validation would have answered. */
export const raceRefusals = {
  /** A delete's foreign key failed: a dependant appeared after the statement counted them. */
  dependantAppeared: () => new DomainError("conflict", "the record still has dependants; remove them first"),
  datesOrdered: () => new DomainError("invalid_field", "endDate must not be before startDate", { field: "endDate" }),
  taskDatesOrdered: () => new DomainError("invalid_field", "startDate must not be after dueDate", { field: "startDate" }),
  budgetNonNegative: () => new DomainError("invalid_field", "budget must be 0 or more", { field: "budget" }),
};

/**
 * A record's delete takes its files with it, each with its event (db/statements/attachment-cascades.ts),
 * at most what a request may change with its deletes: a record with more is refused whole.
 */
export const tooManyFiles = (noun: string) => ({
  [RULES.cascade_records]: () =>
    new DomainError(
      "conflict",
      `the ${noun} has more files than a request may delete with it (${CASCADE_RECORDS}, a batch's deletes together): delete some of its files first`,
      { maxRecords: CASCADE_RECORDS },
    ),
});
