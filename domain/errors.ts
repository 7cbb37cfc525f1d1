// The closed set of error codes, and the one error type every layer throws. A code says what is
// wrong in the API's own terms; how it is answered (an HTTP status, a CLI exit) is decided at the
// edge that speaks to the caller (functions/http/errors.ts maps each code to its status).

export const ERROR_CODES = [
  "missing_field",
  "invalid_field",
  "unknown_field",
  "invalid_json",
  "invalid_reference",
  "unauthorized",
  "invalid_key",
  "insufficient_scope",
  "insufficient_role",
  "email_unverified",
  "cross_site_request",
  "not_found",
  "invalid_transition",
  "dependency_cycle",
  "open_blockers",
  "open_subtasks",
  "conflict",
  "precondition_failed",
  "payload_too_large",
  "unsupported_media_type",
  "resync_required",
  "idempotency_mismatch",
  "rate_limited",
  "internal_error",
  "unavailable",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Extra, code-specific facts a client can act on: the field, the scope needed, the allowed targets. */
export interface ErrorDetails {
  field?: string;
  scope?: string;
  allowed?: string[];
  [key: string]: unknown;
}

/** V8's `Error.stackTraceLimit` (workerd, Node, Chromium): not in the standard library's types. */
const V8Error = Error as { stackTraceLimit?: number };

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    // A refusal is answered, never logged with a stack (functions/http/errors.ts): its code and
    // message say where it came from. Capturing the stack was a quarter of the app's CPU for a
    // 404 in workerd (145 -> 105 µs, bench/results/README.md "CPU per call"), so none is captured.
    const stackTraceLimit = V8Error.stackTraceLimit;
    V8Error.stackTraceLimit = 0;
    super(message);
    V8Error.stackTraceLimit = stackTraceLimit;
    this.name = "DomainError";
    this.code = code;
    this.details = details;
  }

  get field(): string | undefined {
    return this.details.field;
  }
}

export const notFound = (noun: string) => new DomainError("not_found", `${noun} not found`);
