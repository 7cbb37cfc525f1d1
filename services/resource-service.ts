import type { Database } from "../db/client.ts";
import type { CreateOutcome } from "../db/statements/create.ts";
import type { DeleteOutcome } from "../db/statements/delete.ts";
import type { IdempotencyRequest } from "../db/statements/idempotency.ts";
import type { ListOutcome, ListQuery } from "../db/statements/read.ts";
import type { RecordView } from "../db/statements/projection.ts";

export type { RecordView };
import type { PageEnd } from "../domain/paging.ts";
import type { JsonText } from "../domain/json-text.ts";
import type { CallerOutcome } from "../db/statements/caller.ts";
import type { UpdateOutcome } from "../db/statements/update.ts";
import type { Actor } from "../domain/actor.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import type { PageRequest } from "../domain/paging.ts";
import type { Resource } from "../db/statements/resource.ts";
import type { RuleName, RuleViolations } from "../db/statements/rules.ts";
import type { OpsEvent } from "../domain/events.ts";
import { guarded } from "./constraint-errors.ts";
import { recordHistory } from "./events.ts";
import type { Call } from "./context.ts";
import { publishAfterCommit } from "./rooms.ts";
import { settleCaller, settleCreate, settleDelete, settleUpdate, settleUpsert, type RuleErrors, type UpsertResult, type WriteResult } from "./settle.ts";
import type { UpsertOutcome } from "../db/statements/upsert.ts";

// The verbs of a record resource (list, get, create, update, delete, history), each the same shape:
// run the resource's statement, settle its outcome into the answer or a domain error, and publish
// the committed event after the answer. A resource supplies its statements (db/statements), its
// nouns and what each of its rules means when it fails.

export interface ResourceStatements<Record, Filters, New, Values> {
  list(db: Database, actor: Actor, page: PageRequest, filters: Filters, query: ListQuery): Promise<ListOutcome<Record>>;
  get(db: Database, actor: Actor, id: string, view?: RecordView): Promise<{ caller: CallerOutcome; record: Record | null }>;
  create(db: Database, actor: Actor, values: New, idempotency?: IdempotencyRequest): Promise<CreateOutcome<Record>>;
  update(db: Database, actor: Actor, id: string, patch: Values, ifMatch: number | null): Promise<UpdateOutcome<Record>>;
  remove?(db: Database, actor: Actor, id: string, ifMatch: number | null): Promise<DeleteOutcome<Record>>;
  upsert(db: Database, actor: Actor, externalId: string, values: New, ifMatch: number | null): Promise<UpsertOutcome<Record>>;
}

export interface ResourceServiceSpec<Record, Filters, New, Values> {
  /** "task": the noun of messages ("task not found"). */
  noun: string;
  /** For records listed and created under a parent: the parent's noun ("project not found"). */
  parentNoun?: string;
  /** The resource as db/statements defines it: its scopes, event type and table. */
  resource: Resource;
  statements: ResourceStatements<Record, Filters, New, Values>;
  /** What a failed rule of the update statement means, given the record as it was, the patch and what the statement reported. */
  rules?: { [Name in RuleName]?: (before: Record, patch: Values, violation: RuleViolations[Name]) => DomainError };
  /** What a failed rule of the delete statement means (who may delete a comment). */
  removeRules?: { [Name in RuleName]?: () => DomainError };
}

/** Each record embedded (?expand=) needs its own read scope: 403 naming the first one missing. */
function settleExpansions(caller: CallerOutcome, view: RecordView | undefined): void {
  const missing = view?.expand.find((e) => !caller.scopes.includes(e.scope));
  if (missing) throw new DomainError("insufficient_scope", `expand=${missing.name} needs the ${missing.scope} scope`, { scope: missing.scope, field: "expand" });
}

const concurrentCreate = (noun: string) => new DomainError("conflict", `a concurrent request created a ${noun} with this externalId; retry`, { field: "externalId" });

export interface ListInput<Filters> extends ListQuery {
  page: PageRequest;
  filters: Filters;
}

export interface ResourceService<Record, Filters, New, Values> {
  /** The resource its verbs write (a batch puts a replayed record back in its answer order). */
  resource: Resource;
  list(call: Call<ListInput<Filters>>): Promise<{ records: JsonText<Record[]>; count: number; hasMore: boolean; end: PageEnd | null }>;
  get(call: Call<{ id: string; view?: RecordView | undefined }>): Promise<Record>;
  create(call: Call<New>): Promise<WriteResult<Record>>;
  update(call: Call<{ id: string; patch: Values; ifMatch: number | null }>): Promise<WriteResult<Record>>;
  remove?(call: Call<{ id: string; ifMatch: number | null }>): Promise<WriteResult<Record>>;
  /** PUT by external id: creates the record, or changes the one with this external id. */
  upsert(call: Call<{ externalId: string; values: New; ifMatch: number | null }>): Promise<UpsertResult<Record>>;
  history(call: Call<HistoryInput>): Promise<{ events: OpsEvent[]; hasMore: boolean }>;
}

export interface HistoryInput {
  id: string;
  /** Events after this changeVersion (the page's cursor). */
  after: number;
  limit: number;
  retentionSeconds: number;
}

export function resourceService<Record extends { version: number }, Filters, New, Values>(
  spec: ResourceServiceSpec<Record, Filters, New, Values>,
): ResourceService<Record, Filters, New, Values> {
  const { noun, resource, statements } = spec;
  const scopes = { read: resource.readScope, manage: resource.manageScope };
  const remove = statements.remove;
  /** What each failed rule of a change means, given the values the change was asked for. */
  const rulesFor = (values: Values) =>
    Object.fromEntries(Object.entries(spec.rules ?? {}).map(([name, error]) => [name, (before: Record, violation: never) => error(before, values, violation)])) as RuleErrors<Record>;
  return {
    resource,
    async list({ ctx, input }) {
      const { page, filters, ...query } = input;
      const outcome = await statements.list(ctx.db, ctx.actor, page, filters, query);
      settleCaller(outcome.caller, ctx, scopes.read);
      settleExpansions(outcome.caller, input.view);
      if (!outcome.parentFound) throw notFound(spec.parentNoun ?? "parent");
      return { records: outcome.records, count: outcome.count, hasMore: outcome.hasMore, end: outcome.end };
    },
    async get({ ctx, input }) {
      const outcome = await statements.get(ctx.db, ctx.actor, input.id, input.view);
      settleCaller(outcome.caller, ctx, scopes.read);
      settleExpansions(outcome.caller, input.view);
      if (!outcome.record) throw notFound(noun);
      return outcome.record;
    },
    async create({ ctx, input }) {
      const outcome = await guarded(statements.create(ctx.db, ctx.actor, input, ctx.idempotency));
      const result = settleCreate(outcome, { ctx, scope: scopes.manage, noun, ...(spec.parentNoun ? { parentNoun: spec.parentNoun } : {}), idempotency: ctx.idempotency });
      publishAfterCommit(ctx, result);
      return result;
    },
    async update({ ctx, input }) {
      const outcome = await guarded(statements.update(ctx.db, ctx.actor, input.id, input.patch, input.ifMatch));
      const result = settleUpdate(outcome, { ctx, scope: scopes.manage, noun, rules: rulesFor(input.patch) });
      publishAfterCommit(ctx, result);
      return result;
    },
    async upsert({ ctx, input }) {
      // The body of a PUT is a create's; the rules read the fields a change would.
      const context = { ctx, scope: scopes.manage, noun, ifMatch: input.ifMatch, rules: rulesFor(input.values as unknown as Values) };
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
            const result = settleDelete(outcome, { ctx, scope: scopes.manage, noun, ...(spec.removeRules ? { rules: spec.removeRules } : {}) });
            publishAfterCommit(ctx, result);
            return result;
          },
        }
      : {}),
  };
}
