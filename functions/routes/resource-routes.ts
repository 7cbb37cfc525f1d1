import { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../../domain/errors.ts";
import type { ResourceService } from "../../services/resource-service.ts";
import { recordEnvelope } from "../http/envelope.ts";
import type { AnyRoute, Infer } from "../http/registry.ts";
import { IdParams } from "../schemas/common.ts";
import { listQuery } from "../schemas/list-query.ts";
import { resourceNames } from "./resource-names.ts";
import { countsRoute, getRoute, historyRoute, listRoute, readViews } from "./resource-reads.ts";
import { createRoute, deleteRoute, updateRoute, upsertRoute } from "./resource-writes.ts";

// The routes of a resource (list, create, get, change, create-or-change by external id, history
// and, where the service has one, remove), declared from one description. Its tag, paths, nouns,
// operation names, scopes and list query come from the resource's declaration
// (domain/resources.ts, through its service); this description adds its schemas and its words.
// Records that belong to a parent (a project's milestones) are listed and created under it and
// reached by their own id otherwise. Each route is built by its own builder: the reads in
// resource-reads.ts, the writes in resource-writes.ts; docs/routes.md lists every route they
// build, by its path.

export interface ResourceRoutesSpec<
  Record extends { id: string; version: number; createdAt: string },
  Filters,
  New,
  Values,
  Create extends z.ZodType,
  Update extends z.ZodType,
  Upsert extends z.ZodType,
> {
  /**
   * The public record's schema: what the service answers must fit it (checked by tsc).
   * `upsert`: the body of PUT by-external-id, the create's without externalId (the path names it).
   * `expand`: for each related record a read may embed (the resource's expansions), its schema.
   */
  schemas: { record: z.ZodType<Record>; create: Create; update: Update; upsert: Upsert; expand?: { [name: string]: z.ZodType } };
  summaries: { list: string; create: string; get: string; update: string; delete?: string };
  /** What a list answers, for its OpenAPI description; default "A page of <plural> in creation order." */
  listDescription?: string;
  descriptions?: { list?: string; create?: string; update?: string; delete?: string };
  errors?: { create?: ErrorCode[]; update?: ErrorCode[]; delete?: ErrorCode[] };
  /** The create-only field a PUT by external id must not change (a task's projectId), for its description. */
  upsertFixed?: string;
  service: ResourceService<Record, Filters, New, Values>;
  /** The service's input from a validated request: a new record from the body and the path. */
  inputs: {
    create(body: Infer<Create>, parentId: string | undefined): New;
    update(body: Infer<Update>): Values;
    upsert(body: Infer<Upsert>): New;
  };
}

/**
 * The inputs of a resource whose request bodies are already the service's inputs. The identity
 * functions type-check only if each validated request fits what the service takes.
 */
export const requestsAsIs = {
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
  upsert: z.ZodType;
}

/** What the builders of a resource's routes share: its spec, and what is derived from it once. */
export interface ResourceParts<T extends ResourceTypes> {
  spec: ResourceRoutesSpec<T["record"], T["filters"], T["new"], T["values"], T["create"], T["update"], T["upsert"]>;
  /** Its tag, paths, nouns, operation names and scopes, from its declaration. */
  names: ReturnType<typeof resourceNames>;
  /** The singular noun, for messages ("task created"). */
  one: string;
  /** Where one record lives: <path>/{id}. */
  item: `/v1/${string}/{id}`;
  /** Where list and create live: `path`, or `collectionPath` with the parent's id as a parameter. */
  collection: { path: `/v1/${string}`; params?: typeof IdParams };
  /** The parent's id, for records listed and created under one. */
  parentOf(params: { id: string } | undefined): string | undefined;
  /** The query of its list: paging, ?externalId= and its declared filters. */
  query: ReturnType<typeof listQuery>;
  /** The envelope of one record, as the writes answer it. */
  recordReply: ReturnType<typeof recordEnvelope<z.ZodType<T["record"]>>>;
  /** How the list and the get read records (`fields`, `expand`). */
  views: ReturnType<typeof readViews>;
}

export function resourceRoutes<
  Record extends { id: string; version: number; createdAt: string },
  Filters,
  New,
  Values,
  Create extends z.ZodType,
  Update extends z.ZodType,
  Upsert extends z.ZodType,
>(spec: ResourceRoutesSpec<Record, Filters, New, Values, Create, Update, Upsert>): AnyRoute[] {
  const { schemas, service } = spec;
  const { declaration } = service.resource;
  const names = resourceNames(declaration);
  const parts: ResourceParts<{
    record: Record;
    filters: Filters;
    new: New;
    values: Values;
    create: Create;
    update: Update;
    upsert: Upsert;
  }> = {
    spec,
    names,
    one: names.nouns[0],
    item: `${names.path}/{id}`,
    collection: names.collectionPath ? { path: names.collectionPath, params: IdParams } : { path: names.path },
    parentOf: (params) => (names.collectionPath ? params?.id : undefined),
    query: listQuery(declaration),
    recordReply: recordEnvelope(schemas.record),
    views: readViews(service.resource, schemas.record as unknown as z.ZodObject, schemas.expand ?? {}),
  };
  return [
    listRoute(parts),
    // Before <path>/{id}: the router tries routes in this order, and "counts" is no id.
    countsRoute(parts),
    createRoute(parts),
    getRoute(parts),
    updateRoute(parts),
    upsertRoute(parts),
    historyRoute(parts),
    ...deleteRoute(parts),
  ];
}
