import { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../../domain/errors.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { ResourceService } from "../../services/resource-service.ts";
import { recordEnvelope } from "../http/envelope.ts";
import type { AnyRoute, Infer } from "../http/registry.ts";
import { IdParams } from "../schemas/common.ts";
import { getRoute, historyRoute, listRoute, readViews } from "./resource-reads.ts";
import { createRoute, deleteRoute, updateRoute, upsertRoute } from "./resource-writes.ts";

// The routes of a resource (list, create, get, change, create-or-change by external id, history
// and, where the service has one, remove), declared from one description, so a new resource is a
// table, its statements and service, its schemas and this declaration. Records that belong to a
// parent (a project's milestones) are listed and created under it and reached by their own id
// otherwise. Each route is built by its own builder: the reads in resource-reads.ts, the writes in
// resource-writes.ts; docs/routes.md lists every route they build, by its path.

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

/** A resource's types as its spec gives them, in one parameter for the builders of its routes. */
export interface ResourceTypes {
  record: { id: string; version: number; createdAt: string };
  filters: unknown;
  new: unknown;
  values: unknown;
  create: z.ZodType;
  update: z.ZodType;
  query: ListQuery;
  upsert: z.ZodType;
}

/** What the builders of a resource's routes share: its spec, and what is derived from it once. */
export interface ResourceParts<T extends ResourceTypes> {
  spec: ResourceRoutesSpec<T["record"], T["filters"], T["new"], T["values"], T["create"], T["update"], T["query"], T["upsert"]>;
  /** The singular noun, for messages ("task created"). */
  one: string;
  /** Where one record lives: <path>/{id}. */
  item: `/v1/${string}/{id}`;
  /** Where list and create live: `path`, or `collectionPath` with the parent's id as a parameter. */
  collection: { path: `/v1/${string}`; params?: typeof IdParams };
  /** The parent's id, for records listed and created under one. */
  parentOf(params: { id: string } | undefined): string | undefined;
  /** The envelope of one record, as the writes answer it. */
  recordReply: ReturnType<typeof recordEnvelope<z.ZodType<T["record"]>>>;
  /** How the list and the get read records (`fields`, `expand`). */
  views: ReturnType<typeof readViews>;
}

export function resourceRoutes<Record extends { id: string; version: number; createdAt: string }, Filters, New, Values, Create extends z.ZodType, Update extends z.ZodType, Query extends ListQuery, Upsert extends z.ZodType>(
  spec: ResourceRoutesSpec<Record, Filters, New, Values, Create, Update, Query, Upsert>,
): AnyRoute[] {
  const { path, collectionPath, schemas, service } = spec;
  const parts: ResourceParts<{ record: Record; filters: Filters; new: New; values: Values; create: Create; update: Update; query: Query; upsert: Upsert }> = {
    spec,
    one: spec.noun[0],
    item: `${path}/{id}`,
    collection: { path: collectionPath ?? path, ...(collectionPath ? { params: IdParams } : {}) },
    parentOf: (params) => (collectionPath ? params?.id : undefined),
    recordReply: recordEnvelope(schemas.record),
    views: readViews(service.resource, schemas.record as unknown as z.ZodObject, schemas.expand ?? {}),
  };
  return [listRoute(parts), createRoute(parts), getRoute(parts), updateRoute(parts), upsertRoute(parts), historyRoute(parts), ...deleteRoute(parts)];
}
