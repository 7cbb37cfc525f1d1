import type { ServiceContext } from "../../services/context.ts";
import { serviceContext } from "../http/context.ts";
import { writeReply } from "../http/envelope.ts";
import { parseIfMatch } from "../http/preconditions.ts";
import { defineRoute, type AnyRoute, type Infer } from "../http/registry.ts";
import { ExternalIdParams, IdParams } from "../schemas/common.ts";
import type { ResourceParts, ResourceTypes } from "./resource-routes.ts";

// The writes of a resource (resource-routes.ts): create, change, create-or-change by external id,
// and remove. Each runs its service verb the same way from its own handler and from POST /v1/batch
// (`batch.run`).

/** POST <collection>: a new record (201), or the stored first answer to a repeated Idempotency-Key. */
export function createRoute<T extends ResourceTypes>({ spec, names, one, collection, parentOf, recordReply }: ResourceParts<T>) {
  const { service, inputs } = spec;
  const create = (ctx: ServiceContext, { params, body }: { params: { id: string } | undefined; body: Infer<T["create"]> }) =>
    service.create({ ctx, input: inputs.create(body, parentOf(params)) });
  return defineRoute({
    method: "post",
    ...collection,
    operationId: names.operations.create,
    scope: names.scopes.manage,
    tag: names.tag,
    summary: spec.summaries.create,
    ...(spec.descriptions?.create ? { description: spec.descriptions.create } : {}),
    body: spec.schemas.create,
    // conflict: another record of the resource already has the externalId sent.
    errors: [...new Set([...(spec.errors?.create ?? []), "conflict" as const, "idempotency_mismatch" as const])],
    response: { status: 201, schema: recordReply, description: `The created ${one}.`, headers: ["ETag", "Idempotent-Replayed"] },
    batch: { status: 201, creates: true, resource: service.resource, run: create },
    verb: service.create,
    async handler(c, input) {
      return writeReply(await create(serviceContext(c), input), `${one} created`);
    },
  });
}

/** PATCH <path>/{id}: the fields sent change, the others keep their values; If-Match refuses a stale write. */
export function updateRoute<T extends ResourceTypes>({ spec, names, one, item, recordReply }: ResourceParts<T>) {
  const { service, inputs } = spec;
  const update = (ctx: ServiceContext, { params, body }: { params: { id: string }; body: Infer<T["update"]> }, ifMatch: number | null) =>
    service.update({ ctx, input: { id: params.id, patch: inputs.update(body), ifMatch } });
  return defineRoute({
    method: "patch",
    path: item,
    operationId: names.operations.update,
    scope: names.scopes.manage,
    tag: names.tag,
    summary: spec.summaries.update,
    ...(spec.descriptions?.update ? { description: spec.descriptions.update } : {}),
    params: IdParams,
    body: spec.schemas.update,
    errors: [...(spec.errors?.update ?? []), "conflict", "precondition_failed"],
    response: { schema: recordReply, description: `The changed ${one}.`, headers: ["ETag"] },
    batch: { status: 200, creates: false, resource: service.resource, run: update },
    verb: service.update,
    async handler(c, input) {
      const result = await update(serviceContext(c), input, parseIfMatch(c.req.header("if-match")));
      return writeReply(result, result.event ? `${one} updated` : `${one} unchanged`);
    },
  });
}

/** PUT <path>/by-external-id/{externalId}: created as POST would (201), or changed as PATCH would (200). */
export function upsertRoute<T extends ResourceTypes>({ spec, names, one, recordReply }: ResourceParts<T>) {
  const { service, inputs, errors = {} } = spec;
  const upsert = (
    ctx: ServiceContext,
    { params, body }: { params: { externalId: string }; body: Infer<T["upsert"]> },
    ifMatch: number | null,
  ) => service.upsert({ ctx, input: { externalId: params.externalId, values: inputs.upsert(body), ifMatch } });
  return defineRoute({
    method: "put",
    path: `${names.path}/by-external-id/{externalId}`,
    operationId: names.operations.upsert,
    scope: names.scopes.manage,
    tag: names.tag,
    summary: `Create or change the ${one} with this externalId`,
    description:
      `The body is a create's (without externalId, which the path gives). No ${one} has this externalId yet: it is created (201), as POST would. ` +
      `One has: the body's fields change it (200), as PATCH would, and fields left out keep their values` +
      (spec.upsertFixed ? `; ${spec.upsertFixed} must be the one it has (409 otherwise)` : "") +
      `. Concurrent PUTs of one new externalId create exactly one ${one}. If-Match applies to an existing ${one} (412 when there is none).`,
    params: ExternalIdParams,
    body: spec.schemas.upsert,
    // A record created under a parent (a milestone) names the parent in this body: a reference here.
    errors: [
      ...(errors.create ?? []),
      ...(errors.update ?? []),
      ...(names.collectionPath ? ["invalid_reference" as const] : []),
      "conflict",
      "precondition_failed",
    ],
    response: { schema: recordReply, description: `The changed ${one}.`, created: `The created ${one}.`, headers: ["ETag"] },
    batch: { status: 200, creates: false, idUnknownBefore: true, resource: service.resource, run: upsert },
    verb: service.upsert,
    async handler(c, input) {
      const result = await upsert(serviceContext(c), input, parseIfMatch(c.req.header("if-match")));
      return {
        ...writeReply(result, result.created ? `${one} created` : result.event ? `${one} updated` : `${one} unchanged`),
        status: result.created ? 201 : 200,
      };
    },
  });
}

/** DELETE <path>/{id}, for a resource whose service removes records: the record as it was. */
export function deleteRoute<T extends ResourceTypes>({ spec, names, one, item, recordReply }: ResourceParts<T>): AnyRoute[] {
  const { service, summaries } = spec;
  const remove = service.remove;
  if (!remove || !summaries.delete) return [];
  return [
    defineRoute({
      method: "delete",
      path: item,
      operationId: names.operations.delete,
      scope: names.scopes.manage,
      tag: names.tag,
      summary: summaries.delete,
      ...(spec.descriptions?.delete ? { description: spec.descriptions.delete } : {}),
      params: IdParams,
      errors: [...(spec.errors?.delete ?? []), "conflict", "precondition_failed"],
      response: { schema: recordReply, description: `The ${one} as it was before removal.`, headers: ["ETag"] },
      batch: {
        status: 200,
        creates: false,
        resource: service.resource,
        run: (ctx, { params }, ifMatch) => remove({ ctx, input: { id: params.id, ifMatch } }),
      },
      verb: remove,
      async handler(c, input) {
        return writeReply(
          await remove({ ctx: serviceContext(c), input: { id: input.params.id, ifMatch: parseIfMatch(c.req.header("if-match")) } }),
          `${one} deleted`,
        );
      },
    }),
  ];
}
