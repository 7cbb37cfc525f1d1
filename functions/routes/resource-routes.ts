import type { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../../domain/errors.ts";
import { pageRequest } from "../../domain/paging.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { ResourceService } from "../../services/resource-service.ts";
import { serviceContext } from "../context.ts";
import { eventsReply, listEnvelope, listReply, recordEnvelope, recordReply, writeReply } from "../envelope.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import { defineRoute, type AnyRoute, type Infer } from "../registry.ts";
import { settingsOf } from "../env.ts";
import { IdParams } from "../schemas/common.ts";
import { EventSchema, HistoryQuery } from "../schemas/events.ts";

// The five routes of a resource (list, create, get, change, remove), declared from one
// description, so a new resource is a table, its statements and service, its schemas and this
// declaration. Records that belong to a parent (a project's milestones) are listed and created
// under it and reached by their own id otherwise.

type PageQuery = { limit: number; cursor?: string | undefined };
type ListQuery = z.ZodType<PageQuery>;

export interface ResourceRoutesSpec<Record extends { id: string; version: number; createdAt: string }, Filters, New, Values, Create extends z.ZodType, Update extends z.ZodType, Query extends ListQuery> {
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
  /** The public record's schema: what the service answers must fit it (checked by tsc). */
  schemas: { record: z.ZodType<Record>; create: Create; update: Update; list: Query };
  summaries: { list: string; create: string; get: string; update: string; delete?: string };
  /** What a list answers, for its OpenAPI description; default "A page of <plural> in creation order." */
  listDescription?: string;
  descriptions?: { list?: string; create?: string; update?: string; delete?: string };
  errors?: { create?: ErrorCode[]; update?: ErrorCode[]; delete?: ErrorCode[] };
  service: ResourceService<Record, Filters, New, Values>;
  /** The service's input from a validated request: filters from the query, a new record from the body and the path. */
  inputs: {
    filters(query: Omit<Infer<Query>, "limit" | "cursor">): Filters;
    create(body: Infer<Create>, parentId: string | undefined): New;
    update(body: Infer<Update>): Values;
  };
}

/**
 * The inputs of a resource whose request bodies and query are already the service's inputs. The
 * identity functions type-check only if each validated request fits what the service takes.
 */
export const requestsAsIs = {
  filters: <T>(query: T): T => query,
  create: <T>(body: T): T => body,
  update: <T>(body: T): T => body,
};

export function resourceRoutes<Record extends { id: string; version: number; createdAt: string }, Filters, New, Values, Create extends z.ZodType, Update extends z.ZodType, Query extends ListQuery>(
  spec: ResourceRoutesSpec<Record, Filters, New, Values, Create, Update, Query>,
): AnyRoute[] {
  const { tag, path, collectionPath, noun, names, scopes, schemas, summaries, descriptions = {}, errors = {}, service, inputs } = spec;
  const [one] = noun;
  const item = `${path}/{id}` as const;
  const RecordReply = recordEnvelope(schemas.record);
  const parentOf = (params: { id: string } | undefined) => (collectionPath ? params?.id : undefined);
  const collection = { path: collectionPath ?? path, ...(collectionPath ? { params: IdParams } : {}) };
  const routes: AnyRoute[] = [
    defineRoute({
      method: "get",
      ...collection,
      operationId: names.list,
      scope: scopes.read,
      tag,
      summary: summaries.list,
      ...(descriptions.list ? { description: descriptions.list } : {}),
      query: schemas.list,
      response: { schema: listEnvelope(schemas.record), description: spec.listDescription ?? `A page of ${noun[1]} in creation order.` },
      async handler(c, { params, query }) {
        const { limit, cursor, ...filters } = query as Infer<Query> & PageQuery;
        const page = await service.list({ ctx: serviceContext(c), input: { page: pageRequest({ limit, cursor }), filters: inputs.filters(filters), parentId: parentOf(params) } });
        return listReply(c.req.url, page, noun);
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
      errors: [...(errors.create ?? []), "idempotency_mismatch"],
      response: { status: 201, schema: RecordReply, description: `The created ${one}.` },
      async handler(c, { params, body }) {
        return writeReply(await service.create({ ctx: serviceContext(c), input: inputs.create(body, parentOf(params)) }), `${one} created`);
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
      response: { schema: RecordReply, description: `The ${one}.` },
      async handler(c, { params }) {
        return recordReply(await service.get({ ctx: serviceContext(c), input: { id: params.id } }), one);
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
      response: { schema: RecordReply, description: `The changed ${one}.` },
      async handler(c, { params, body }) {
        const result = await service.update({ ctx: serviceContext(c), input: { id: params.id, patch: inputs.update(body), ifMatch: parseIfMatch(c.req.header("if-match")) } });
        return writeReply(result, result.event ? `${one} updated` : `${one} unchanged`);
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
      response: { schema: listEnvelope(EventSchema), description: `A page of the ${one}'s events in changeVersion order.` },
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
        response: { schema: RecordReply, description: `The ${one} as it was before removal.` },
        async handler(c, { params }) {
          return writeReply(await remove({ ctx: serviceContext(c), input: { id: params.id, ifMatch: parseIfMatch(c.req.header("if-match")) } }), `${one} deleted`);
        },
      }),
    );
  }
  return routes;
}
