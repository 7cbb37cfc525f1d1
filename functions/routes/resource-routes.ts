import type { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client.ts";
import type { Actor } from "../../db/queries/actor.ts";
import type { IdempotencyRequest } from "../../db/queries/idempotency.ts";
import { notFound } from "../../db/queries/outcomes.ts";
import { pageRequest, type PageRequest } from "../../db/queries/paging.ts";
import type { RecordJson, WriteResult } from "../../db/queries/records.ts";
import { listEnvelope, recordEnvelope, sendList, sendRecord, sendWrite } from "../envelope.ts";
import type { ErrorCode } from "../errors.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import type { Scope } from "../lib/scopes.ts";
import { defineRoute, type AnyRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";

// The five routes of a resource (list, create, get, change, remove), declared from one
// description, so a new resource is a schema, a queries file and this declaration. Records that
// belong to a parent (a project's milestones) are listed and created under it and reached by
// their own id otherwise.

type Page = { records: RecordJson[]; hasMore: boolean };
type ListQuery = z.ZodType<{ limit: number; cursor?: string | undefined }>;

export interface ResourceRoutesSpec<Create extends z.ZodType, Update extends z.ZodType, Query extends ListQuery> {
  tag: string;
  /** The collection, e.g. /v1/risks; one record lives at <path>/{id}. */
  path: `/v1/${string}`;
  /**
   * Where list and create live instead of `path` when records belong to a parent, with the
   * parent's id as {id} (e.g. /v1/projects/{id}/milestones); the service's list and create get
   * that id as `parentId`.
   */
  collectionPath?: `/v1/${string}/{id}/${string}`;
  /** Singular and plural, for messages ("3 risks") and operation names. */
  noun: [string, string];
  /** Operation names: listRisks, createRisk, getRisk, updateRisk, deleteRisk. */
  names: { list: string; create: string; get: string; update: string; delete?: string };
  scopes: { read: Scope; manage: Scope };
  schemas: { record: z.ZodType; create: Create; update: Update; list: Query };
  summaries: { list: string; create: string; get: string; update: string; delete?: string };
  /** What a list answers, for its OpenAPI description; default "A page of <plural> in creation order." */
  listDescription?: string;
  descriptions?: { list?: string; create?: string; update?: string; delete?: string };
  errors?: { create?: ErrorCode[]; update?: ErrorCode[]; delete?: ErrorCode[] };
  service: {
    list(db: Database, actor: Actor, page: PageRequest, filters: Omit<z.output<Query>, "limit" | "cursor">, parentId?: string): Promise<Page>;
    create(db: Database, actor: Actor, input: z.output<Create>, idempotency?: IdempotencyRequest, parentId?: string): Promise<WriteResult<RecordJson>>;
    get(db: Database, actor: Actor, id: string): Promise<RecordJson | null>;
    update(db: Database, actor: Actor, id: string, patch: z.output<Update>, ifMatch: number | null): Promise<WriteResult<RecordJson>>;
    remove?(db: Database, actor: Actor, id: string, ifMatch: number | null): Promise<WriteResult<RecordJson>>;
  };
}

export function resourceRoutes<Create extends z.ZodType, Update extends z.ZodType, Query extends ListQuery>(
  spec: ResourceRoutesSpec<Create, Update, Query>,
): AnyRoute[] {
  const { tag, path, collectionPath, noun, names, scopes, schemas, summaries, descriptions = {}, errors = {}, service } = spec;
  const [one] = noun;
  const item = `${path}/{id}` as const;
  const collection = collectionPath ? { path: collectionPath, params: IdParams } : { path };
  const parentIdOf = (params: unknown) => (collectionPath ? (params as z.output<typeof IdParams>).id : undefined);
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
        const { limit, cursor, ...filters } = query as z.output<Query>;
        return sendList(c, await service.list(c.var.db, c.var.actor, pageRequest({ limit, cursor }), filters, parentIdOf(params)), noun);
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
      errors: errors.create ?? [],
      response: { status: 201, schema: recordEnvelope(schemas.record), description: `The created ${one}.` },
      async handler(c, { params, body }) {
        const created = await service.create(c.var.db, c.var.actor, body as z.output<Create>, c.var.idempotency, parentIdOf(params));
        return sendWrite(c, created, `${one} created`, 201);
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
      response: { schema: recordEnvelope(schemas.record), description: `The ${one}.` },
      async handler(c, { params }) {
        const record = await service.get(c.var.db, c.var.actor, params.id);
        if (!record) throw notFound(one);
        return sendRecord(c, record, one);
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
      response: { schema: recordEnvelope(schemas.record), description: `The changed ${one}.` },
      async handler(c, { params, body }) {
        const result = await service.update(c.var.db, c.var.actor, params.id, body as z.output<Update>, parseIfMatch(c.req.header("if-match")));
        return sendWrite(c, result, result.event ? `${one} updated` : `${one} unchanged`);
      },
    }),
  ];
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
        response: { schema: recordEnvelope(schemas.record), description: `The ${one} as it was before removal.` },
        async handler(c, { params }) {
          return sendWrite(c, await remove(c.var.db, c.var.actor, params.id, parseIfMatch(c.req.header("if-match"))), `${one} deleted`);
        },
      }),
    );
  }
  return routes;
}
