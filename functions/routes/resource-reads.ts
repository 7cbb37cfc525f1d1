import { z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/paging.ts";
import type { RecordView, ResourceService } from "../../services/resource-service.ts";
import { settingsOf } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { eventsReply, listEnvelope, listReply, recordEnvelope, recordReply, reply } from "../http/envelope.ts";
import { RESPONSE_HEADERS } from "../http/headers.ts";
import { defineRoute } from "../http/registry.ts";
import { IdParams, SearchQuery, SortQuery, viewQuery } from "../schemas/common.ts";
import { resourceEventSchema } from "../schemas/event-types.ts";
import { HistoryQuery } from "../schemas/events.ts";
import type { ResourceParts, ResourceTypes } from "./resource-routes.ts";

// The reads of a resource (resource-routes.ts): its list, one record, and one record's history.

type PageQuery = { limit: number; cursor?: string | undefined };
type ViewQuery = { fields?: string[] | undefined; expand?: string[] | undefined };
type ResourceOf = ResourceService<never, never, never, never>["resource"];

/**
 * How a resource's records are read (`fields`, `expand`): the query parameters, the schema of a
 * record as a read answers it, and the view a validated query asks for. A read answers the record
 * (with any expansion asked for), or, with `fields`, only those fields: the schema is the union of
 * the two, so a client typed from the document knows a field may be absent only when it trimmed it.
 */
export function readViews(resource: ResourceOf, record: z.ZodObject, expand: { [name: string]: z.ZodType }) {
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

/** GET <collection>: a page of records, filtered, searched, sorted, trimmed and expanded as asked. */
export function listRoute<T extends ResourceTypes>({ spec, names, collection, parentOf, query: filtersQuery, views }: ResourceParts<T>) {
  const { service } = spec;
  const { resource } = service;
  const query = filtersQuery.extend({
    ...(Object.keys(resource.sortable).length ? { sort: SortQuery(resource.sortable).optional() } : {}),
    ...(resource.search ? { q: SearchQuery.optional() } : {}),
    ...views.query,
  });
  return defineRoute({
    method: "get",
    ...collection,
    operationId: names.operations.list,
    scope: names.scopes.read,
    tag: names.tag,
    summary: spec.summaries.list,
    ...(spec.descriptions?.list ? { description: spec.descriptions.list } : {}),
    query,
    response: {
      schema: listEnvelope(views.item),
      description: spec.listDescription ?? `A page of ${names.nouns[1]}, in creation order unless sorted.`,
      headers: ["Link"],
    },
    verb: service.list,
    async handler(c, { params, query }) {
      const { limit, cursor, sort, q, fields, expand, ...filters } = query as PageQuery & ViewQuery & { sort?: string; q?: string };
      const page = pageRequest({ limit, cursor, sort }, resource.sortable);
      // The rest of the query is the declared filters, validated by the query built from the same declaration.
      const input = { page, filters: filters as T["filters"], parentId: parentOf(params), search: q, view: views.of({ fields, expand }) };
      return listReply(c.req.url, await service.list({ ctx: serviceContext(c), input }), names.nouns, page.sort);
    },
  });
}

/**
 * GET <collection>/counts: how many records the list with the same filters (and search) selects,
 * in all and by status, so a client can say how many a view leaves out.
 */
export function countsRoute<T extends ResourceTypes>({ spec, names, collection, parentOf, query: filtersQuery }: ResourceParts<T>) {
  const { service } = spec;
  const { resource } = service;
  const status = resource.declaration.filters.status;
  const statuses = status?.kind === "oneOf" ? status.values : null;
  const Count = z.number().int().min(0);
  const schema = z.object({
    total: Count.openapi({ description: `How many ${names.nouns[1]} the filters select.` }),
    byStatus: (statuses ? z.object(Object.fromEntries(statuses.map((value) => [value, Count]))) : z.null()).openapi({
      description: statuses ? "Of those, how many have each status (every status, 0 included)." : "Null: the resource has no status.",
    }),
  });
  return defineRoute({
    method: "get",
    path: `${collection.path}/counts`,
    ...(collection.params ? { params: collection.params } : {}),
    operationId: names.operations.counts,
    scope: names.scopes.read,
    tag: names.tag,
    summary: `Count the ${names.nouns[1]} a list with these filters selects, by status`,
    query: filtersQuery.omit({ limit: true, cursor: true }).extend(resource.search ? { q: SearchQuery.optional() } : {}),
    response: { schema: recordEnvelope(schema), description: `How many ${names.nouns[1]} the filters select.` },
    verb: service.counts,
    async handler(c, { params, query }) {
      const { q, ...filters } = query as { q?: string };
      const input = { filters: filters as T["filters"], parentId: parentOf(params), search: q };
      return reply(await service.counts({ ctx: serviceContext(c), input }), `${names.nouns[1]} counted`);
    },
  });
}

/** GET <path>/{id}: one record, trimmed and expanded as asked, with its ETag. */
export function getRoute<T extends ResourceTypes>({ spec, names, one, item, views }: ResourceParts<T>) {
  const { service } = spec;
  return defineRoute({
    method: "get",
    path: item,
    operationId: names.operations.get,
    scope: names.scopes.read,
    tag: names.tag,
    summary: spec.summaries.get,
    params: IdParams,
    query: z.strictObject(views.query),
    response: { schema: recordEnvelope(views.item), description: `The ${one}.`, headers: ["ETag"] },
    verb: service.get,
    async handler(c, { params, query }) {
      const record = await service.get({ ctx: serviceContext(c), input: { id: params.id, view: views.of(query as ViewQuery) } });
      // With `fields`, the version may be left out: the ETag is sent only when it is answered.
      const reply = recordReply(record as T["record"], one);
      if (typeof record.version !== "number") delete reply.headers[RESPONSE_HEADERS.etag.name];
      return reply;
    },
  });
}

/** GET <path>/{id}/history: the record's events, oldest first, paged. */
export function historyRoute<T extends ResourceTypes>({ spec, names, one, item }: ResourceParts<T>) {
  const { service } = spec;
  return defineRoute({
    method: "get",
    path: `${item}/history`,
    operationId: names.operations.history,
    scope: names.scopes.read,
    tag: names.tag,
    summary: `History of a ${one}: its events, oldest first`,
    description:
      `Every kept event of the ${one} (created, each update with its changes and actor, deleted), in changeVersion order, paged. ` +
      `A deleted ${one}'s history stays readable while its events are kept (EVENT_RETENTION_DAYS); an id the organisation never had is 404.`,
    params: IdParams,
    query: HistoryQuery,
    response: {
      schema: listEnvelope(resourceEventSchema(service.resource.type)),
      description: `A page of the ${one}'s events in changeVersion order.`,
      headers: ["Link"],
    },
    verb: service.history,
    async handler(c, { params, query }) {
      const after = query.cursor === undefined ? 0 : Number(query.cursor);
      const retentionSeconds = settingsOf(c.env).events.retentionSeconds;
      const page = await service.history({ ctx: serviceContext(c), input: { id: params.id, after, limit: query.limit, retentionSeconds } });
      return eventsReply(c.req.url, page, "cursor");
    },
  });
}
