import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { DatabaseRefusedError, DatabaseUnavailableError } from "../../db/client.ts";
import { DomainError, ERROR_CODES, type ErrorCode } from "../../domain/errors.ts";
import type { AppEnv } from "../env.ts";
import { RESPONSE_HEADERS } from "./headers.ts";
import { PROTECTED_RESOURCE_PATH } from "../oauth/metadata.ts";

/**
 * The status each error code of the kernel's closed set answers with (docs/api.md "Errors").
 * The same map produces the OpenAPI error responses, so docs and runtime cannot drift.
 */
export const ERROR_STATUS = {
  missing_field: 400,
  invalid_field: 400,
  unknown_field: 400,
  invalid_json: 400,
  invalid_reference: 400,
  unauthorized: 401,
  invalid_key: 401,
  insufficient_scope: 403,
  insufficient_role: 403,
  cross_site_request: 403,
  not_found: 404,
  invalid_transition: 409,
  dependency_cycle: 409,
  open_blockers: 409,
  open_subtasks: 409,
  conflict: 409,
  precondition_failed: 412,
  resync_required: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_mismatch: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** The HTTP status an error answers with. */
export const statusOf = (error: DomainError): ErrorStatus => ERROR_STATUS[error.code];

/** An error as the API answers it: its status, the headers that status carries, and the error envelope with the request id. */
export function sendError(c: Context<AppEnv>, error: DomainError) {
  const status = statusOf(error);
  // RFC 9728 §5.1: where an OAuth client finds how to get a token for this API.
  if (status === 401)
    c.header(
      RESPONSE_HEADERS.wwwAuthenticate.name,
      `Bearer realm="opsroom", resource_metadata="${new URL(c.req.url).origin}${PROTECTED_RESOURCE_PATH}"`,
    );
  // Unavailable is momentary (the database out of reach): a client may retry after a second.
  if (status === 503) c.header(RESPONSE_HEADERS.retryAfter.name, "1");
  return c.json(
    { success: false, version: "v1", message: error.message, error: { code: error.code, ...error.details, requestId: c.get("requestId") } },
    status,
  );
}

/** The app's notFound: a path no route serves. */
export const noEndpoint = (c: Context<AppEnv>) =>
  sendError(c, new DomainError("not_found", `no endpoint ${c.req.method} ${new URL(c.req.url).pathname}`));

/**
 * The app's onError: a domain error is answered as it is; the database out of reach is 503, and a
 * database refusing the request (our configuration or a bug) or any other error is logged with the
 * request id and answered a plain 500 without internals.
 */
export function answerError(error: Error, c: Context<AppEnv>) {
  const log = (message: string, detail: Record<string, unknown>) =>
    console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), message, ...detail }));
  if (error instanceof DomainError) return sendError(c, error);
  if (error instanceof DatabaseUnavailableError) {
    log("database unavailable", { cause: String(error.cause) });
    // Nothing is ever half-written, but a statement whose connection dropped after it was sent
    // may have committed whole (test/protection/database-failures.test.ts): do not promise less.
    return sendError(
      c,
      new DomainError(
        "unavailable",
        "the database is unavailable; retry shortly (nothing is half-written; a write cut off in flight may have been made, so retry a create with the same Idempotency-Key)",
      ),
    );
  }
  if (error instanceof DatabaseRefusedError) {
    // The configuration or a bug of ours, not an outage: the cause is logged, never answered.
    log("database refused the request", { cause: String(error.cause) });
    return sendError(c, new DomainError("internal_error", "unexpected error; nothing was changed"));
  }
  if (error instanceof HTTPException && error.status === 400)
    return sendError(c, new DomainError("invalid_json", "the body is not valid JSON"));
  log(String(error), { stack: error.stack });
  return sendError(c, new DomainError("internal_error", "unexpected error; nothing was changed"));
}

/**
 * Every field an error may carry beyond its code, typed: what a client can act on. The object is
 * strict, so an error sending a field not named here fails the tests' check of every answer
 * (test/helpers/api.ts) before it reaches the document.
 */
const errorDetails = {
  field: z.string().optional().openapi({ description: "The request field (or header, or query parameter) the error is about." }),
  issues: z
    .array(z.object({ code: z.enum(ERROR_CODES), field: z.string(), message: z.string() }))
    .optional()
    .openapi({ description: "Validation: every problem found, the most telling first." }),
  scope: z.string().optional().openapi({ description: "insufficient_scope: the scope the call needs." }),
  roles: z.array(z.string()).optional().openapi({ description: "insufficient_role: the roles that may make the call." }),
  from: z.string().optional().openapi({ description: "invalid_transition: the record's current status." }),
  allowed: z.array(z.string()).optional().openapi({ description: "invalid_transition: the statuses allowed from it." }),
  path: z
    .array(z.string())
    .optional()
    .openapi({ description: "dependency_cycle: the task ids of the cycle the change would close, from the task changed back to it." }),
  blockers: z
    .array(z.string())
    .optional()
    .openapi({ description: "open_blockers: the ids of the tasks blocking this one that are neither done nor cancelled." }),
  subtasks: z
    .array(z.string())
    .optional()
    .openapi({ description: "open_subtasks: the ids of the subtasks (at any depth) that are neither done nor cancelled." }),
  maxDepth: z.number().int().optional().openapi({ description: "conflict on a task's parentId: how deep subtasks may nest." }),
  maxSubtasks: z.number().int().optional().openapi({ description: "conflict on a task's parentId: how many subtasks one task may have." }),
  maxComments: z.number().int().optional().openapi({ description: "conflict on a comment's taskId: how many comments one task may hold." }),
  maxChecklistItems: z
    .number()
    .int()
    .optional()
    .openapi({ description: "conflict on a checklist item's taskId: how many items one task's checklist may hold." }),
  maxRecords: z.number().int().optional().openapi({
    description:
      "conflict on a delete: how many records one request's deletes may change with them (a label's tasks; a task's comments, checklist items and the tasks it blocks).",
  }),
  currentVersion: z.number().int().optional().openapi({ description: "precondition_failed: the record's version now." }),
  dependants: z
    .record(z.string(), z.number().int())
    .optional()
    .openapi({ description: "conflict on a delete: how many of each kind still point at the record." }),
  currencies: z
    .array(z.string())
    .optional()
    .openapi({ description: "conflict on a project's finances: the currencies to choose from with ?currency=." }),
  retryAfter: z.number().int().optional().openapi({ description: "rate_limited: seconds to wait (also the Retry-After header)." }),
  oldestChangeVersion: z.number().int().optional().openapi({ description: "resync_required: the oldest changeVersion still kept." }),
  queuedUpTo: z.number().int().optional().openapi({
    description:
      "A webhook replay stopped midway (rate_limited, conflict, unavailable): it queued the events up to this changeVersion; go on with after=queuedUpTo.",
  }),
  backlog: z.number().int().optional().openapi({ description: "conflict on a webhook's delivery: the deliveries it has queued." }),
  backlogLimit: z
    .number()
    .int()
    .optional()
    .openapi({ description: "conflict on a webhook's delivery: the most deliveries it may have queued." }),
  operation: z.number().int().optional().openapi({ description: "POST /v1/batch: the index of the operation refused." }),
  requestId: z.string().openapi({ description: "This request's id, as in X-Request-Id." }),
};

/** The error envelope for answers with these codes. */
export function errorEnvelopeOf(codes: readonly [ErrorCode, ...ErrorCode[]]) {
  return z.object({
    success: z.literal(false),
    version: z.literal("v1"),
    message: z.string().openapi({ example: "budget is required" }),
    error: z.strictObject({ code: z.enum(codes), ...errorDetails }),
  });
}

/**
 * Any error answer. Named ApiError, not Error: a generated TypeScript client would otherwise
 * shadow the language's own Error.
 */
export const ErrorEnvelopeSchema = errorEnvelopeOf(ERROR_CODES).openapi("ApiError");

/** "not_found" -> "NotFoundError", "internal_error" -> "InternalError". */
const componentNameOf = (code: ErrorCode) =>
  code.replace(/(^|_)(\w)/g, (_, _sep, letter: string) => letter.toUpperCase()).replace(/(?<!Error)$/, "Error");

const REQUEST_ID = "9f2c1d7e-4b1a-4a5e-9d40-3c2a1b0e8f77";

/** An answer of each code as the API words it: the error examples of the document. */
export const ERROR_EXAMPLES: Record<ErrorCode, { message: string; details?: Record<string, unknown> }> = {
  missing_field: {
    message: "title is required",
    details: { field: "title", issues: [{ code: "missing_field", field: "title", message: "title is required" }] },
  },
  invalid_field: {
    message: 'priority must be one of "low", "medium", "high", "urgent"',
    details: {
      field: "priority",
      issues: [{ code: "invalid_field", field: "priority", message: 'priority must be one of "low", "medium", "high", "urgent"' }],
    },
  },
  unknown_field: {
    message: "colour is not a field of this request",
    details: { field: "colour", issues: [{ code: "unknown_field", field: "colour", message: "colour is not a field of this request" }] },
  },
  invalid_json: { message: "the body is not valid JSON" },
  invalid_reference: { message: "projectId names no project of this organisation", details: { field: "projectId" } },
  unauthorized: { message: "the Authorization header must be: Bearer <key>" },
  invalid_key: { message: "the API key is unknown or has been revoked" },
  insufficient_scope: { message: "this call needs the tasks.manage scope", details: { scope: "tasks.manage" } },
  insufficient_role: { message: "only an owner or an admin manages API keys", details: { roles: ["owner", "admin"] } },
  cross_site_request: { message: "a write with the session cookie must come from a page of this origin" },
  not_found: { message: "task not found" },
  invalid_transition: {
    message: "a task cannot go from done to blocked",
    details: { field: "status", from: "done", allowed: ["todo", "in_progress"] },
  },
  dependency_cycle: {
    message: "the task cannot be blocked by 019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d12: that task is already blocked by it",
    details: {
      field: "blockedBy",
      path: ["019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10", "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d12", "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10"],
    },
  },
  open_blockers: {
    message: "the task is blocked by 1 open task: finish or cancel it first",
    details: { field: "status", blockers: ["019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d12"] },
  },
  open_subtasks: {
    message: "the task has 2 open subtasks: finish or cancel them first",
    details: { field: "status", subtasks: ["019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d13", "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d14"] },
  },
  conflict: {
    message: "the project still has 3 tasks and 2 milestones",
    details: { dependants: { milestones: 2, tasks: 3, risks: 0, issues: 0, financialEntries: 0 } },
  },
  precondition_failed: { message: "If-Match is 3 but the record is at version 4", details: { currentVersion: 4 } },
  resync_required: {
    message: "events after changeVersion 12 are past retention: take a fresh snapshot",
    details: { oldestChangeVersion: 5120 },
  },
  payload_too_large: { message: "the body must be at most 65536 bytes" },
  unsupported_media_type: { message: "send the body as JSON with Content-Type: application/json" },
  idempotency_mismatch: { message: "this Idempotency-Key was used with another request" },
  rate_limited: { message: "rate limit of 600 requests per minute exceeded; retry in 42 s", details: { retryAfter: 42 } },
  internal_error: { message: "unexpected error; nothing was changed" },
  unavailable: { message: "the database is unreachable; nothing was changed, retry shortly" },
};

/** The whole answer ERROR_EXAMPLES gives for `code`. */
export const errorExampleOf = (code: ErrorCode) => ({
  success: false as const,
  version: "v1" as const,
  message: ERROR_EXAMPLES[code].message,
  error: { code, ...ERROR_EXAMPLES[code].details, requestId: REQUEST_ID },
});

/** One component per code, with its example, so a status's answer is a union of references, not a copy. */
const ERROR_CODE_SCHEMAS = Object.fromEntries(
  ERROR_CODES.map((code) => [code, errorEnvelopeOf([code]).openapi(componentNameOf(code), { example: errorExampleOf(code) })]),
) as Record<ErrorCode, ReturnType<typeof errorEnvelopeOf>>;

/** The answer of a status that can carry `codes`: the code's component, or a union of them. */
function errorSchemaOf(codes: readonly [ErrorCode, ...ErrorCode[]]) {
  const [first, second, ...rest] = codes.map((code) => ERROR_CODE_SCHEMAS[code]);
  return second ? z.union([first!, second, ...rest]) : first!;
}

const STATUS_DESCRIPTION: Record<ErrorStatus, string> = {
  400: "Bad request: a field is missing, invalid or unknown, the JSON is malformed, or a reference does not exist",
  401: "Missing, malformed, unknown or revoked API key",
  403: "The key lacks the scope this operation needs",
  404: "No such record in the key's organisation",
  409: "The change conflicts with the record's state (or, for a task, with the tasks it depends on)",
  410: "The events after that changeVersion are past retention: take a fresh snapshot (a list answer's changeVersion) and follow from there",
  412: "If-Match does not match the record's version",
  413: "The body is larger than 64 KiB",
  415: "The body is not application/json",
  422: "Idempotency-Key reused with a different request",
  429: "Rate limit exceeded; retry after Retry-After seconds",
  500: "Unexpected error; nothing was changed",
  503: "The database is unreachable; nothing is half-written (a write cut off in flight may have been made whole: retry a create with its Idempotency-Key)",
};

/** OpenAPI responses for the given codes, grouped by status, each listing its possible codes. */
export function errorResponses(codes: readonly ErrorCode[], headersOf: (status: ErrorStatus) => Record<string, unknown> = () => ({})) {
  const byStatus = new Map<ErrorStatus, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]) => [
      status,
      {
        description: `${STATUS_DESCRIPTION[status]} (${statusCodes.join(", ")})`,
        headers: headersOf(status),
        // Each status lists exactly the codes this operation can answer with it.
        content: { "application/json": { schema: errorSchemaOf(statusCodes as [ErrorCode, ...ErrorCode[]]) } },
      },
    ]),
  );
}
