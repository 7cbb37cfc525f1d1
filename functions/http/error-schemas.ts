import { z } from "@hono/zod-openapi";
import { ERROR_CODES, type ErrorCode } from "../../domain/errors.ts";
import { ERROR_STATUS, type ErrorStatus } from "./errors.ts";

// The schemas of an error answer, for the OpenAPI document (functions/openapi/operation.ts) and the
// tests' check of every answer: apart from errors.ts, which answers errors on every request, so
// that building them is left to what needs them.

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
  missingParts: z
    .array(z.number().int())
    .optional()
    .openapi({ description: "conflict on a multipart upload's completion: the parts that have not arrived (the first 100)." }),
  currencies: z
    .array(z.string())
    .optional()
    .openapi({ description: "conflict on a project's finances: the currencies to choose from with ?currency=." }),
  retryAfter: z
    .number()
    .int()
    .optional()
    .openapi({ description: "rate_limited, and unavailable with a reason: seconds to wait (also the Retry-After header)." }),
  reason: z.enum(["database_quota_exceeded", "database_disabled"]).optional().openapi({
    description:
      "unavailable: the database refuses every call until its operator acts (its compute time quota used up, or it is disabled); retry after retryAfter, not at once.",
  }),
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
  email_unverified: {
    message:
      "this organisation requires a confirmed email address: follow the link mailed to you, or ask for another with POST /auth/send-verification-email { email } (the console offers it)",
  },
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
  // In the catalogue's order, so two operations that answer the same codes answer the same response.
  const ordered = ERROR_CODES.filter((code) => codes.includes(code));
  for (const code of ordered) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
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
