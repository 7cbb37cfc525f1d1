import type { Database } from "../db/client.ts";
import type { CallerOutcome } from "../db/statements/engine/caller.ts";
import type { CreateOutcome } from "../db/statements/engine/create.ts";
import type { DeleteOutcome } from "../db/statements/engine/delete.ts";
import type { IdempotencyRequest } from "../db/statements/engine/idempotency.ts";
import type { RecordView } from "../db/statements/engine/projection.ts";
import { countRecords, getRecord, listRecords, type ListFiltersOf, type ListQuery } from "../db/statements/engine/read.ts";
import type { RecordOf, Resource } from "../db/statements/engine/resource.ts";
import type { RuleName, RuleViolations } from "../db/statements/engine/rules.ts";
import type { UpdateOutcome } from "../db/statements/engine/update.ts";
import type { UpsertOutcome } from "../db/statements/engine/upsert.ts";
import type { Actor } from "../domain/actor.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import type { OpsEvent } from "../domain/events.ts";
import type { JsonText } from "../domain/json-text.ts";
import type { PageEnd, PageRequest } from "../domain/paging.ts";
import { RESOURCES, type ResourceType } from "../domain/resources.ts";
import { guarded } from "./constraint-errors.ts";
import type { Call } from "./context.ts";
import { recordHistory } from "./events.ts";
import { resolveMe } from "./personnel-links.ts";
import { publishAfterCommit } from "./rooms.ts";
import {
  settleCaller,
  settleCreate,
  settleDelete,
  settleUpdate,
  settleUpsert,
  type RemoveRuleErrors,
  type RuleErrors,
  type RulesOf,
  type UpsertResult,
  type WriteResult,
} from "./settle.ts";

export type { RecordView };

// The verbs of a record resource (list, get, create, update, delete, history), each the same shape:
// run the resource's statement, settle its outcome into the answer or a domain error, and publish
// the committed event after the answer. A resource supplies its write statements (db/statements)
// and what each of its rules means when it fails; its reads, filters and nouns follow from its
// declaration (domain/resources.ts).

/** The statements of a resource's writes; its list and get are read.ts's, over its declaration. */
/**
 * The statements of a resource's writes; its list and get are read.ts's, over its declaration.
 * `Changes` are the rules its update and upsert check, `Removes` those its delete checks.
 */
export interface WriteStatements<Record, New, Values, Changes extends RuleName = never, Removes extends RuleName = never> {
  create(db: Database, actor: Actor, values: New, idempotency?: IdempotencyRequest): Promise<CreateOutcome<Record>>;
  update(db: Database, actor: Actor, id: string, patch: Values, ifMatch: number | null): Promise<UpdateOutcome<Record, Changes>>;
  remove?(db: Database, actor: Actor, id: string, ifMatch: number | null): Promise<DeleteOutcome<Record, Removes>>;
  upsert(db: Database, actor: Actor, externalId: string, values: New, ifMatch: number | null): Promise<UpsertOutcome<Record, Changes>>;
}

/** What a failed rule of the update statement means, given the record as it was, the patch and what the statement reported. */
export type ChangeRuleErrors<Record, Values, Changes extends RuleName> = {
  [Name in Changes]: (before: Record, patch: Values, violation: RuleViolations[Name]) => DomainError;
};

/**
 * A resource's service: its statements and, for every rule they can report, what its failure
 * means (`rules` for the update's and upsert's, `removeRules` for the delete's, who may delete a
 * comment). A rule a statement gains fails to compile here until it has its error.
 */
export type ResourceServiceSpec<
  R extends Resource,
  New,
  Values,
  Changes extends RuleName = never,
  Removes extends RuleName = never,
  Record = RecordOf<R>,
> = {
  /** The resource as db/statements defines it: its declaration (nouns, scopes, parent, filters) and table. */
  resource: R;
  statements: WriteStatements<Record, New, Values, Changes, Removes>;
} & RulesOf<ChangeRuleErrors<Record, Values, Changes>, Changes> &
  ([Removes] extends [never] ? { removeRules?: undefined } : { removeRules: RemoveRuleErrors<Removes> });

/** Each record embedded (?expand=) needs its own read scope: 403 naming the first one missing. */
function settleExpansions(caller: CallerOutcome, view: RecordView | undefined): void {
  const missing = view?.expand.find((e) => !caller.scopes.includes(e.scope));
  if (missing)
    throw new DomainError("insufficient_scope", `expand=${missing.name} needs the ${missing.scope} scope`, {
      scope: missing.scope,
      field: "expand",
    });
}

const concurrentCreate = (noun: string) =>
  new DomainError("conflict", `a concurrent request created a ${noun} with this externalId; retry`, { field: "externalId" });

export interface ListInput<Filters> extends ListQuery {
  page: PageRequest;
  filters: Filters;
}

export interface ResourceService<Record, Filters, New, Values> {
  /** The resource its verbs write (a batch puts a replayed record back in its answer order). */
  resource: Resource;
  list(call: Call<ListInput<Filters>>): Promise<{ records: JsonText<Record[]>; count: number; hasMore: boolean; end: PageEnd | null }>;
  get(call: Call<{ id: string; view?: RecordView | undefined }>): Promise<Record>;
  /** How many records the list with these filters selects, in all and by status (null: the resource has none). */
  counts(call: Call<Omit<ListInput<Filters>, "page" | "view">>): Promise<RecordCounts>;
  create(call: Call<New>): Promise<WriteResult<Record>>;
  update(call: Call<{ id: string; patch: Values; ifMatch: number | null }>): Promise<WriteResult<Record>>;
  remove?(call: Call<{ id: string; ifMatch: number | null }>): Promise<WriteResult<Record>>;
  /** PUT by external id: creates the record, or changes the one with this external id. */
  upsert(call: Call<{ externalId: string; values: New; ifMatch: number | null }>): Promise<UpsertResult<Record>>;
  history(call: Call<HistoryInput>): Promise<{ events: OpsEvent[]; hasMore: boolean }>;
}

export interface RecordCounts {
  total: number;
  /** Every status of the resource, with how many of the selected records have it. */
  byStatus: Record<string, number> | null;
}

export interface HistoryInput {
  id: string;
  /** Events after this changeVersion (the page's cursor). */
  after: number;
  limit: number;
  retentionSeconds: number;
}

/** The noun of the record a resource's records belong to (a comment's task), if any. */
function parentNounOf(resource: Resource): string | undefined {
  const { parent } = resource.declaration;
  return parent ? RESOURCES[parent as ResourceType].nouns[0] : undefined;
}

/** What each failed rule of a change means, given the values the change was asked for. */
function ruleErrors<Record, Values, Changes extends RuleName>(
  rules: ChangeRuleErrors<Record, Values, Changes> | undefined,
  values: Values,
): RuleErrors<Record, Changes> {
  const errors = Object.entries<(before: Record, patch: Values, violation: never) => DomainError>(rules ?? {});
  return Object.fromEntries(
    errors.map(([name, error]) => [name, (before: Record, violation: never) => error(before, values, violation)]),
  ) as RuleErrors<Record, Changes>;
}

/** The counts verb of a resource: by status when its lists filter by one. */
function countsOf<Filters>(resource: Resource, parentNoun: string | undefined) {
  const status = resource.declaration.filters.status;
  const statuses = status?.kind === "oneOf" ? status.values : null;
  return async ({ ctx, input }: Call<Omit<ListInput<Filters>, "page" | "view">>): Promise<RecordCounts> => {
    const filters = await resolveMe(ctx, resource, input.filters);
    // The filters are those the resource's list takes (ListFiltersOf), which tsc cannot see through the generic.
    const selected = { ...input, filters: filters as Readonly<Record<string, unknown>> };
    const outcome = await countRecords(ctx.db, ctx.actor, resource, selected, statuses ? "status" : null);
    settleCaller(outcome.caller, ctx, resource.readScope);
    if (!outcome.parentFound) throw notFound(parentNoun ?? "parent");
    const byStatus = statuses ? Object.fromEntries(statuses.map((value) => [value, outcome.groups[value] ?? 0])) : null;
    return { total: outcome.total, byStatus };
  };
}

/** The service of a resource: its writes' statements and rules; its reads, nouns and scopes from its declaration. */
export function resourceService<R extends Resource, New, Values, Changes extends RuleName = never, Removes extends RuleName = never>(
  spec: ResourceServiceSpec<R, New, Values, Changes, Removes>,
): ResourceService<RecordOf<R>, ListFiltersOf<R>, New, Values> {
  // A resource's record has its version (RecordOf), which tsc cannot see through the generic R.
  type Record = RecordOf<R> & { version: number };
  const { resource } = spec;
  const statements = spec.statements as unknown as WriteStatements<Record, New, Values, Changes, Removes>;
  const noun = resource.declaration.nouns[0];
  const parentNoun = parentNounOf(resource);
  const scopes = { read: resource.readScope, manage: resource.manageScope };
  const remove = statements.remove;
  // Every rule the statements can report has its error (ResourceServiceSpec); tsc cannot see through
  // the generic that `rules` is there exactly when they can report one, so each settle takes them as such.
  const rulesFor = (values: Values) =>
    ({ rules: ruleErrors<Record, Values, Changes>(spec.rules, values) }) as RulesOf<RuleErrors<Record, Changes>, Changes>;
  const removeRules = { rules: spec.removeRules } as RulesOf<RemoveRuleErrors<Removes>, Removes>;
  return {
    resource,
    async list({ ctx, input }) {
      const { page, ...query } = input;
      const filters = await resolveMe(ctx, resource, input.filters);
      const outcome = await listRecords(ctx.db, ctx.actor, resource, { ...query, page, filters });
      settleCaller(outcome.caller, ctx, scopes.read);
      settleExpansions(outcome.caller, input.view);
      if (!outcome.parentFound) throw notFound(parentNoun ?? "parent");
      return { records: outcome.records, count: outcome.count, hasMore: outcome.hasMore, end: outcome.end };
    },
    counts: countsOf(resource, parentNoun),
    async get({ ctx, input }) {
      const outcome = await getRecord(ctx.db, ctx.actor, resource, input.id, { view: input.view });
      settleCaller(outcome.caller, ctx, scopes.read);
      settleExpansions(outcome.caller, input.view);
      if (!outcome.record) throw notFound(noun);
      return outcome.record;
    },
    async create({ ctx, input }) {
      const outcome = await guarded(statements.create(ctx.db, ctx.actor, input, ctx.idempotency));
      const result = settleCreate(outcome, {
        ctx,
        scope: scopes.manage,
        noun,
        ...(parentNoun ? { parentNoun } : {}),
        idempotency: ctx.idempotency,
      });
      publishAfterCommit(ctx, result);
      return result;
    },
    async update({ ctx, input }) {
      const outcome = await guarded(statements.update(ctx.db, ctx.actor, input.id, input.patch, input.ifMatch));
      const result = settleUpdate(outcome, { ctx, scope: scopes.manage, noun, ...rulesFor(input.patch) });
      publishAfterCommit(ctx, result);
      return result;
    },
    async upsert({ ctx, input }) {
      // The body of a PUT is a create's; the rules read the fields a change would.
      const context = { ctx, scope: scopes.manage, noun, ifMatch: input.ifMatch, ...rulesFor(input.values as unknown as Values) };
      const run = () => guarded(statements.upsert(ctx.db, ctx.actor, input.externalId, input.values, input.ifMatch));
      // A concurrent PUT created the record between this statement's look and its insert: once
      // more, and it is found and changed. A batch cannot run a statement twice: it refuses.
      const result = settleUpsert(await run(), context) ?? (ctx.db.batch ? null : settleUpsert(await run(), context));
      if (!result) throw concurrentCreate(noun);
      publishAfterCommit(ctx, result);
      return result;
    },
    history: ({ ctx, input }) => recordHistory({ ctx, input: { ...input, resource, noun } }),
    ...(remove
      ? {
          async remove({ ctx, input }: Call<{ id: string; ifMatch: number | null }>) {
            const outcome = await guarded(remove(ctx.db, ctx.actor, input.id, input.ifMatch), { deleting: true });
            const result = settleDelete(outcome, { ctx, scope: scopes.manage, noun, ...removeRules });
            publishAfterCommit(ctx, result);
            return result;
          },
        }
      : {}),
  };
}
