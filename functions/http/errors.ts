import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { DatabaseRefusedError, DatabaseSuspendedError, DatabaseUnavailableError } from "../../db/client.ts";
import { DomainError, type ErrorCode } from "../../domain/errors.ts";
import { settingsOf, type AppEnv } from "../env.ts";
import { PROTECTED_RESOURCE_PATH } from "../oauth/metadata.ts";
import { RESPONSE_HEADERS } from "./headers.ts";

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
  email_unverified: 403,
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

/** What an error answer says: a DomainError's code, message and details, or the same built without one. */
export type Refusal = Pick<DomainError, "code" | "message" | "details">;

/** The HTTP status an error answers with. */
export const statusOf = (error: Refusal): ErrorStatus => ERROR_STATUS[error.code];

/** An error as the API answers it: its status, the headers that status carries, and the error envelope with the request id. */
export function sendError(c: Context<AppEnv>, error: Refusal) {
  const status = statusOf(error);
  // RFC 9728 §5.1: where an OAuth client finds how to get a token for this API.
  if (status === 401)
    c.header(
      RESPONSE_HEADERS.wwwAuthenticate.name,
      `Bearer realm="opsroom", resource_metadata="${settingsOf(c.env).publicOrigin}${PROTECTED_RESOURCE_PATH}"`,
    );
  // Unavailable is momentary (the database out of reach): a client may retry after a second,
  // unless the refusal says how long (databaseSuspended).
  if (status === 503) c.header(RESPONSE_HEADERS.retryAfter.name, String(error.details.retryAfter ?? 1));
  return c.json(
    { success: false, version: "v1", message: error.message, error: { code: error.code, ...error.details, requestId: c.get("requestId") } },
    status,
  );
}

/**
 * The app's notFound: a path no route serves. Nothing throws it, so it is answered without an
 * Error (making one was most of a 404's CPU: bench/results/README.md "CPU per call"), and with the path
 * Hono has already read from the URL.
 */
export const noEndpoint = (c: Context<AppEnv>) =>
  sendError(c, { code: "not_found", message: `no endpoint ${c.req.method} ${c.req.path}`, details: {} });

/**
 * The app's onError: a domain error is answered as it is; the database out of reach is 503, and a
 * database refusing the request (our configuration or a bug) or any other error is logged with the
 * request id and answered a plain 500 without internals.
 */
export function answerError(error: Error, c: Context<AppEnv>) {
  const log = (message: string, detail: Record<string, unknown>) =>
    console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), message, ...detail }));
  if (error instanceof DomainError) return sendError(c, error);
  if (error instanceof DatabaseSuspendedError) {
    log("database suspended", { reason: error.reason, cause: String(error.cause) });
    return sendError(c, databaseSuspended(error.reason));
  }
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
 * Neon refusing every connection until someone acts (db/client.ts DatabaseSuspendedError): the
 * compute time quota (it comes back when the month's quota resets or the plan is raised: an hour
 * between retries) or the endpoint disabled (an operator enables it: a retry in a minute costs
 * nothing). docs/deployment.md "Neon".
 */
function databaseSuspended(reason: DatabaseSuspendedError["reason"]): DomainError {
  return reason === "database_quota_exceeded"
    ? new DomainError("unavailable", "the database's compute time quota is used up; nothing was changed, retry later", {
        reason,
        retryAfter: 3600,
      })
    : new DomainError("unavailable", "the database is disabled; nothing was changed, retry once its operator enables it", {
        reason,
        retryAfter: 60,
      });
}
