import { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../../domain/errors.ts";
import { pageRequest } from "../../domain/paging.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { RecordView, ResourceService } from "../../services/resource-service.ts";
import { serviceContext } from "../http/context.ts";
import { eventsReply, listEnvelope, listReply, recordEnvelope, recordReply, writeReply } from "../http/envelope.ts";
import { parseIfMatch } from "../http/preconditions.ts";
import { defineRoute, type AnyRoute, type Infer } from "../http/registry.ts";
import { settingsOf } from "../env.ts";
import { RESPONSE_HEADERS } from "../http/headers.ts";
import { ExternalIdParams, IdParams, SearchQuery, SortQuery, viewQuery } from "../schemas/common.ts";
import type { ServiceContext } from "../../services/context.ts";
import { HistoryQuery } from "../schemas/events.ts";
import { resourceEventSchema } from "../schemas/event-types.ts";

// The five routes of a resource (list, create, get, change, remove), declared from one
// description, so a new resource is a table, its statements and service, its schemas and this
// declaration. Records that belong to a parent (a project's milestones) are listed and created
// under it and reached by their own id otherwise.

type PageQuery = { limit: number; cursor?: string | undefined };
type ListQuery = z.ZodType<PageQuery>;

export interface ResourceRoutesSpec<Record extends { id: string; version: number; createdAt: string }, Filters, New, Values, Create extends z.ZodType, Update extends z.ZodType, Query extends ListQuery, Upsert extends z.ZodType> {
  tag: string;
  /** The collection, e.g. /v1/risks; one record lives at <path>/{id}. */
  path: `/v1/${string}`;
  /**
   * Where list and create live instead of `path` when records belong to a parent, with the
   * parent's id as {id} (e.g. /v1/projects/{id}/milestones).
   */
  collectionPath?: `/v1/${string}/{id}/${string}`;
  /** Singular and plural, for messages ("3 risks"). */
  noun: [string, string];
  /** Operation names: listRisks, createRisk, getRisk, updateRisk, deleteRisk. */
  names: { list: string; create: string; get: string; update: string; delete?: string };
  scopes: { read: Scope; manage: Scope };
  /**
   * The public record's schema: what the service answers must fit it (checked by tsc).
   * `upsert`: the body of PUT by-external-id, the create's without externalId (the path names it).
   * `expand`: for each related record a read may embed (the resource's expansions), its schema.
   */
  schemas: { record: z.ZodType<Record>; create: Create; update: Update; list: Query; upsert: Upsert; expand?: { [name: string]: z.ZodType } };
  summaries: { list: string; create: string; get: string; update: string; delete?: string };
  /** What a list answers, for its OpenAPI description; default "A page of <plural> in creation order." */
  listDescription?: string;
  descriptions?: { list?: string; create?: string; update?: string; delete?: string };
  errors?: { create?: ErrorCode[]; update?: ErrorCode[]; delete?: ErrorCode[] };
  /** The create-only field a PUT by external id must not change (a task's projectId), for its description. */
  upsertFixed?: string;
  service: ResourceService<Record, Filters, New, Values>;
  /** The service's input from a validated request: filters from the query, a new record from the body and the path. */
  inputs: {
    filters(query: Omit<Infer<Query>, "limit" | "cursor">): Filters;
    create(body: Infer<Create>, parentId: string | undefined): New;
    update(body: Infer<Update>): Values;
    upsert(body: Infer<Upsert>): New;
  };
}

type ViewQuery = { fields?: string[] | undefined; expand?: string[] | undefined };

/**
 * How a resource's records are read (`fields`, `expand`): the query parameters, the schema of a
 * record as a read answers it, and the view a validated query asks for. A read answers the record
 * (with any expansion asked for), or, with `fields`, only those fields: the schema is the union of
 * the two, so a client typed from the document knows a field may be absent only when it trimmed it.
 */
function readViews(resource: ResourceOf, record: z.ZodObject, expand: { [name: string]: z.ZodType }) {
  const expansionNames = Object.keys(resource.expansions);
  for (const name of expansionNames) if (!expand[name]) throw new Error(`${resource.name}: expansion ${name} has no schema`);
  const full = record.extend(Object.fromEntries(expansionNames.map((name) => [name, expand[name]!.nullable().optional()])));
  const sparse = full.partial().required({ id: true });
  return {
    query: viewQuery(resource.fieldNames, expansionNames),
    item: z.union([full, sparse]),
    of(query: ViewQuery): RecordView {
      return { fields: query.fields ?? null, expand: (query.expand ?? []).map((name) => resource.expansions[name]!) };
    },
  };
}

type ResourceOf = ResourceService<never, never, never, never>["resource"];

/**
 * The inputs of a resource whose request bodies and query are already the service's inputs. The
 * identity functions type-check only if each validated request fits what the service takes.
 */
export const requestsAsIs = {
  filters: <T>(query: T): T => query,
  create: <T>(body: T): T => body,
  update: <T>(body: T): T => body,
  upsert: <T>(body: T): T => body,
};

export function resourceRoutes<Record extends { id: string; version: number; createdAt: string }, Filters, New, Values, Create extends z.ZodType, Update extends z.ZodType, Query extends ListQuery, Upsert extends z.ZodType>(
  spec: ResourceRoutesSpec<Record, Filters, New, Values, Create, Update, Query, Upsert>,
): AnyRoute[] {
  const { tag, path, collectionPath, noun, names, scopes, schemas, summaries, descriptions = {}, errors = {}, service, inputs } = spec;
  const [one] = noun;
  const item = `${path}/{id}` as const;
  const RecordReply = recordEnvelope(schemas.record);
  const { resource } = service;
  const views = readViews(resource, schemas.record as unknown as z.ZodObject, schemas.expand ?? {});
  const listQuery = (schemas.list as unknown as z.ZodObject).extend({
    ...(Object.keys(resource.sortable).length ? { sort: SortQuery(resource.sortable).optional() } : {}),
    ...(resource.search ? { q: SearchQuery.optional() } : {}),
    ...views.query,
  });
  const getQuery = z.strictObject(views.query);
  const parentOf = (params: { id: string } | undefined) => (collectionPath ? params?.id : undefined);
  const collection = { path: collectionPath ?? path, ...(collectionPath ? { params: IdParams } : {}) };
  // The writes, as the routes' handlers and POST /v1/batch both run them.
  const create = (ctx: ServiceContext, { params, body }: { params: { id: string } | undefined; body: Infer<Create> }) =>
    service.create({ ctx, input: inputs.create(body, parentOf(params)) });
  const update = (ctx: ServiceContext, { params, body }: { params: { id: string }; body: Infer<Update> }, ifMatch: number | null) =>
    service.update({ ctx, input: { id: params.id, patch: inputs.update(body), ifMatch } });
  const upsert = (ctx: ServiceContext, { params, body }: { params: { externalId: string }; body: Infer<Upsert> }, ifMatch: number | null) =>
    service.upsert({ ctx, input: { externalId: params.externalId, values: inputs.upsert(body), ifMatch } });
  const routes: AnyRoute[] = [
    defineRoute({
      method: "get",
      ...collection,
      operationId: names.list,
      scope: scopes.read,
      tag,
      summary: summaries.list,
      ...(descriptions.list ? { description: descriptions.list } : {}),
      query: listQuery,
      response: {
        schema: listEnvelope(views.item),
        description: spec.listDescription ?? `A page of ${noun[1]}, in creation order unless sorted.`,
        headers: ["Link"],
      },
      async handler(c, { params, query }) {
        const { limit, cursor, sort, q, fields, expand, ...filters } = query as Infer<Query> & PageQuery & ViewQuery & { sort?: string; q?: string };
        const page = pageRequest({ limit, cursor, sort }, resource.sortable);
        const input = { page, filters: inputs.filters(filters as Omit<Infer<Query>, "limit" | "cursor">), parentId: parentOf(params), search: q, view: views.of({ fields, expand }) };
        return listReply(c.req.url, await service.list({ ctx: serviceContext(c), input }), noun, page.sort);
      },
    }),
    defineRoute({
      method: "post",
      ...collection,
      operationId: names.create,
      scope: scopes.manage,
      tag,
      summary: summaries.create,
      ...(descriptions.create ? { description: descriptions.create } : {}),
      body: schemas.create,
      // conflict: another record of the resource already has the externalId sent.
      errors: [...new Set([...(errors.create ?? []), "conflict" as const, "idempotency_mismatch" as const])],
      response: { status: 201, schema: RecordReply, description: `The created ${one}.`, headers: ["ETag", "Idempotent-Replayed"] },
      batch: { status: 201, creates: true, resource: service.resource, run: create },
      async handler(c, input) {
        return writeReply(await create(serviceContext(c), input), `${one} created`);
      },
    }),
    defineRoute({
      method: "get",
      path: item,
      operationId: names.get,
      scope: scopes.read,
      tag,
      summary: summaries.get,
      params: IdParams,
      query: getQuery,
      response: { schema: recordEnvelope(views.item), description: `The ${one}.`, headers: ["ETag"] },
      async handler(c, { params, query }) {
        const record = await service.get({ ctx: serviceContext(c), input: { id: params.id, view: views.of(query as ViewQuery) } });
        // With `fields`, the version may be left out: the ETag is sent only when it is answered.
        const reply = recordReply(record as Record, one);
        if (typeof record.version !== "number") delete reply.headers[RESPONSE_HEADERS.etag.name];
        return reply;
      },
    }),
    defineRoute({
      method: "patch",
      path: item,
      operationId: names.update,
      scope: scopes.manage,
      tag,
      summary: summaries.update,
      ...(descriptions.update ? { description: descriptions.update } : {}),
      params: IdParams,
      body: schemas.update,
      errors: [...(errors.update ?? []), "conflict", "precondition_failed"],
      response: { schema: RecordReply, description: `The changed ${one}.`, headers: ["ETag"] },
      batch: { status: 200, creates: false, resource: service.resource, run: update },
      async handler(c, input) {
        const result = await update(serviceContext(c), input, parseIfMatch(c.req.header("if-match")));
        return writeReply(result, result.event ? `${one} updated` : `${one} unchanged`);
      },
    }),
    defineRoute({
      method: "put",
      path: `${path}/by-external-id/{externalId}`,
      operationId: names.create.replace(/^create/, "upsert"),
      scope: scopes.manage,
      tag,
      summary: `Create or change the ${one} with this externalId`,
      description:
        `The body is a create's (without externalId, which the path gives). No ${one} has this externalId yet: it is created (201), as POST would. ` +
        `One has: the body's fields change it (200), as PATCH would, and fields left out keep their values` +
        (spec.upsertFixed ? `; ${spec.upsertFixed} must be the one it has (409 otherwise)` : "") +
        `. Concurrent PUTs of one new externalId create exactly one ${one}. If-Match applies to an existing ${one} (412 when there is none).`,
      params: ExternalIdParams,
      body: schemas.upsert,
      // A record created under a parent (a milestone) names the parent in this body: a reference here.
      errors: [...(errors.create ?? []), ...(errors.update ?? []), ...(collectionPath ? ["invalid_reference" as const] : []), "conflict", "precondition_failed"],
      response: { schema: RecordReply, description: `The changed ${one}.`, created: `The created ${one}.`, headers: ["ETag"] },
      batch: { status: 200, creates: false, idUnknownBefore: true, resource: service.resource, run: upsert },
      async handler(c, input) {
        const result = await upsert(serviceContext(c), input, parseIfMatch(c.req.header("if-match")));
        return { ...writeReply(result, result.created ? `${one} created` : result.event ? `${one} updated` : `${one} unchanged`), status: result.created ? 201 : 200 };
      },
    }),
  ];
  routes.push(
    defineRoute({
      method: "get",
      path: `${item}/history`,
      operationId: `${names.get.replace(/^get/, "list")}History`,
      scope: scopes.read,
      tag,
      summary: `History of a ${one}: its events, oldest first`,
      description:
        `Every kept event of the ${one} (created, each update with its changes and actor, deleted), in changeVersion order, paged. ` +
        `A deleted ${one}'s history stays readable while its events are kept (EVENT_RETENTION_DAYS); an id the organisation never had is 404.`,
      params: IdParams,
      query: HistoryQuery,
      response: { schema: listEnvelope(resourceEventSchema(service.resource.type)), description: `A page of the ${one}'s events in changeVersion order.`, headers: ["Link"] },
      async handler(c, { params, query }) {
        const after = query.cursor === undefined ? 0 : Number(query.cursor);
        const retentionSeconds = settingsOf(c.env).events.retentionSeconds;
        const page = await service.history({ ctx: serviceContext(c), input: { id: params.id, after, limit: query.limit, retentionSeconds } });
        return eventsReply(c.req.url, page, "cursor");
      },
    }),
  );
  const remove = service.remove;
  if (remove && names.delete && summaries.delete) {
    routes.push(
      defineRoute({
        method: "delete",
        path: item,
        operationId: names.delete,
        scope: scopes.manage,
        tag,
        summary: summaries.delete,
        ...(descriptions.delete ? { description: descriptions.delete } : {}),
        params: IdParams,
        errors: [...(errors.delete ?? []), "conflict", "precondition_failed"],
        response: { schema: RecordReply, description: `The ${one} as it was before removal.`, headers: ["ETag"] },
        batch: { status: 200, creates: false, resource: service.resource, run: (ctx, { params }, ifMatch) => remove({ ctx, input: { id: params.id, ifMatch } }) },
        async handler(c, input) {
          return writeReply(await remove({ ctx: serviceContext(c), input: { id: input.params.id, ifMatch: parseIfMatch(c.req.header("if-match")) } }), `${one} deleted`);
        },
      }),
    );
  }
  return routes;
}
