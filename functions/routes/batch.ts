import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { DomainError } from "../../domain/errors.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { MAX_JSON_DEPTH } from "../../domain/limits.ts";
import type { Scope } from "../../domain/scopes.ts";
import { atOperation, runBatch, type BatchOperation } from "../../services/batch.ts";
import { describeCaller } from "../../services/organisation.ts";
import type { AppEnv } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { envelope } from "../http/envelope.ts";
import { RESPONSE_HEADERS } from "../http/headers.ts";
import { parseIfMatch } from "../http/preconditions.ts";
import { defineRoute, matchRoute, type AnyRoute } from "../http/registry.ts";
import { validationError } from "../http/validation.ts";
import { consumeMore } from "../middleware/rate-limit.ts";
import { Uuid } from "../schemas/common.ts";

// POST /v1/batch: the creates, changes and deletes of records, up to 100, all or nothing, in one
// database round trip (services/batch.ts). Each operation is the single call it names, validated
// by that route's own schemas and run by its own service verb; the registry's `batch` entry on a
// route is what makes it an operation a batch may run.

export const MAX_OPERATIONS = 100;
/** 100 operations of up to a few KiB each; a single call's body stays at 64 KiB. */
const BATCH_BODY_LIMIT = 1024 * 1024;

const REF = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** `$<ref>.id`, as a whole string value or a whole path segment. */
const REFERENCE = /^\$([A-Za-z][A-Za-z0-9_-]{0,63})\.id$/;

const OperationSchema = z
  .strictObject({
    method: z.enum(["POST", "PUT", "PATCH", "DELETE"]).openapi({ description: "The method of the single call." }),
    path: z
      .string()
      .min(4)
      .max(1000)
      .regex(/^\/v1\//, "must be a path under /v1/")
      .openapi({ description: "The path of the single call; a segment may be `$<ref>.id`.", example: "/v1/tasks/$design.id" }),
    body: z.record(z.string(), z.unknown()).optional().openapi({
      description: "The single call's body; any string value that is exactly `$<ref>.id` becomes that operation's record id.",
    }),
    ref: z.string().max(64).regex(REF, "must be a letter then up to 63 letters, digits, _ or -").optional().openapi({
      description: "Names this operation, so later ones can use `$<ref>.id`: the id of the record it creates, changes or deletes.",
      example: "design",
    }),
    ifMatch: z
      .union([z.string().max(40), z.number().int().min(0)])
      .optional()
      .openapi({ description: "The single call's If-Match: the record's version, as its ETag gives it.", example: '"3"' }),
  })
  .openapi("BatchOperation");

const BatchRequestSchema = z.strictObject({ operations: z.array(OperationSchema).min(1).max(MAX_OPERATIONS) }).openapi("BatchRequest", {
  example: {
    operations: [
      {
        method: "POST",
        path: "/v1/projects",
        ref: "move",
        body: { name: "Warehouse move", budget: 120000, startDate: "2026-12-01", endDate: "2027-03-31" },
      },
      { method: "POST", path: "/v1/projects/$move.id/milestones", ref: "pack", body: { name: "Packed", dueDate: "2027-01-15" } },
    ],
  },
});

const OperationResult = z
  .object({
    status: z
      .number()
      .int()
      .openapi({ description: "What the single call would have answered: 201 created, 200 changed or deleted.", example: 201 }),
    data: z.record(z.string(), z.unknown()).openapi({ description: "The record, as the single call answers it." }),
  })
  .openapi("BatchOperationResult");

const BatchReply = envelope({
  batchId: Uuid.nullable().openapi({ description: "Carried by every event the batch committed; null when it changed nothing." }),
  data: z.array(OperationResult).openapi({ description: "One result per operation, in order." }),
});

type Operation = z.infer<typeof OperationSchema>;

/** A path segment decoded as the router decodes one: a malformed escape stays as it was sent. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Replaces every string that is exactly `$<ref>.id` with that operation's id. The batch's body was
 * checked to nest at most MAX_JSON_DEPTH deep (functions/middleware/json-body.ts); the walk checks it again
 * itself, so no value handed to it can overflow the stack.
 */
function resolved(value: unknown, refs: Map<string, string>, field: string, depth = 0): unknown {
  if (depth > MAX_JSON_DEPTH)
    throw new DomainError("invalid_field", `${field}: arrays and objects nest at most ${MAX_JSON_DEPTH} deep`, { field });
  if (typeof value === "string") {
    const name = REFERENCE.exec(value)?.[1];
    if (!name) return value;
    const id = refs.get(name);
    if (!id)
      throw new DomainError(
        "invalid_field",
        `${field}: ${value} names no earlier operation (refs so far: ${[...refs.keys()].join(", ") || "none"})`,
        { field },
      );
    return id;
  }
  if (Array.isArray(value)) return value.map((item, i) => resolved(item, refs, `${field}.${i}`, depth + 1));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolved(item, refs, field === "body" ? key : `${field}.${key}`, depth + 1)]),
    );
  }
  return value;
}

/** One operation as the batch runs it, validated as its single call would be; refs it names resolved. */
function prepare(c: Context<AppEnv>, routes: AnyRoute[], op: Operation, index: number, refs: Map<string, string>): BatchOperation {
  // The scope a refusal of this operation checks first: none until its route is known.
  c.set("scope", null);
  const path = op.path
    .split("/")
    .map((segment) => String(resolved(segment, refs, `operations.${index}.path`)))
    .join("/");
  const match = matchRoute(routes, op.method, path.split("?")[0]!);
  const route = match?.route;
  // A route of the settings area (a person only) never runs in a batch, whatever it declares.
  if (!route?.batch || route.auth === "session" || path.includes("?")) {
    throw new DomainError(
      "invalid_field",
      `operations.${index}: ${op.method} ${op.path} is not an operation a batch runs; it runs the creates, changes and deletes of records (POST, PUT, PATCH and DELETE in GET /v1's operations)`,
      { field: `operations.${index}.path` },
    );
  }
  c.set("scope", route.scope === "public" ? null : route.scope);
  const sent = Object.fromEntries(Object.entries(match!.params).map(([name, value]) => [name, decoded(value)]));
  const params = route.params ? parse(route.params, sent, "param") : undefined;
  if (!route.body && op.body !== undefined)
    throw new DomainError("unknown_field", `operations.${index}.body: ${op.method} takes no body`, { field: `operations.${index}.body` });
  // A single call without its body is refused (415); so is an operation without one.
  if (route.body && op.body === undefined)
    throw new DomainError("missing_field", `operations.${index}.body is required: ${op.method} takes a body`, {
      field: `operations.${index}.body`,
    });
  const body = route.body ? parse(route.body, resolved(op.body, refs, "body"), "json") : undefined;
  const ifMatch = parseIfMatch(op.ifMatch === undefined ? undefined : String(op.ifMatch));
  const batch = route.batch;
  const newId = batch.creates ? uuidv7() : undefined;
  if (op.ref !== undefined) {
    if (refs.has(op.ref))
      throw new DomainError("invalid_field", `operations.${index}.ref: ${op.ref} is already the ref of an earlier operation`, {
        field: `operations.${index}.ref`,
      });
    if (batch.idUnknownBefore) {
      throw new DomainError(
        "invalid_field",
        `operations.${index}.ref: a PUT by external id cannot be named, since its record's id is known only once it has run; name the record by its externalId in later PUTs`,
        { field: `operations.${index}.ref` },
      );
    }
    const id = newId ?? (params as { id?: unknown } | undefined)?.id;
    if (typeof id !== "string") throw new Error(`${route.method} ${route.path} names no record for a ref`);
    refs.set(op.ref, id);
  }
  return {
    status: batch.status,
    newId,
    resource: batch.resource,
    run: (ctx) => batch.run(ctx, { params, query: undefined, body }, ifMatch),
  };
}

function parse(schema: z.ZodType, input: unknown, target: "param" | "json"): unknown {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, input, target);
  return result.data;
}

export const batchRoutes: AnyRoute[] = [
  defineRoute({
    method: "post",
    path: "/v1/batch",
    operationId: "runBatch",
    scope: null,
    tag: "Batch",
    summary: "Run up to 100 creates, changes and deletes, all or nothing",
    description:
      "Each operation is a single call (method, path, body, ifMatch), checked exactly as that call is: its scope, its body, its references, If-Match and the workflow. " +
      "Either every operation commits, in order, with consecutive changeVersions, or none does: a refused operation answers its own status and error, with `error.operation` its index, and nothing is written. " +
      "A later operation may use `$<ref>.id` (the record of the operation named `ref`) as a whole string value of its body or a whole path segment. " +
      "One database round trip; every event committed carries the batch's `batchId`, and sockets and webhooks receive them in order. " +
      "An Idempotency-Key covers the whole batch. The rate limit counts each operation as a request. Body up to 1 MiB.",
    body: BatchRequestSchema,
    bodyLimit: BATCH_BODY_LIMIT,
    errors: [
      "insufficient_scope",
      "not_found",
      "invalid_reference",
      "invalid_transition",
      "conflict",
      "precondition_failed",
      "idempotency_mismatch",
    ],
    response: {
      schema: BatchReply,
      description: "Every operation committed: each one's status and record, in order.",
      headers: ["Idempotent-Replayed"],
    },
    verb: runBatch,
    async handler(c, { body }) {
      const operations = body.operations;
      await consumeMore(c, operations.length - 1, `this batch of ${operations.length} operations`);
      const routes = await c.get("registry")();
      const refs = new Map<string, string>();
      const prepared: BatchOperation[] = [];
      /** The scope each operation needs, as far as known: a refusal checks them in order first. */
      const scopes: (Scope | null)[] = [];
      for (const [index, op] of operations.entries()) {
        try {
          prepared.push(prepare(c, routes, op, index, refs));
          scopes.push(c.get("scope"));
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          // Found before the database was asked. As for a single call, 401 and 403 come first: the
          // key, then the scope of every operation up to this one, in order.
          const caller = await describeCaller({ ctx: serviceContext(c), input: {} });
          for (const [earlier, scope] of [...scopes, c.get("scope")].entries()) {
            if (scope && !caller.scopes.includes(scope))
              throw new DomainError("insufficient_scope", `this call needs the ${scope} scope`, { scope, operation: earlier });
          }
          throw atOperation(error, index);
        }
      }
      const answer = await runBatch({ ctx: serviceContext(c), input: { operations: prepared, idempotency: c.get("idempotency") } });
      const count = answer.results.length;
      return {
        body: {
          success: true as const,
          version: "v1" as const,
          message: `${count} ${count === 1 ? "operation" : "operations"} committed`,
          batchId: answer.batchId,
          data: answer.results,
        },
        headers: answer.replayed ? { [RESPONSE_HEADERS.idempotentReplayed.name]: "true" } : ({} as Record<string, string>),
      };
    },
  }),
];
