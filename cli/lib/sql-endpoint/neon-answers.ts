// Neon's SQL-over-HTTP proxy's own limits and error answers, as its source has them
// (neondatabase/neon, proxy/src/serverless/): the local SQL endpoint answers with these where Neon
// would, and its fault mode (NEON_FAULTS) answers them on demand, so tests see what the API makes
// of each.

/** proxy/src/binary/proxy.rs: sql_over_http_max_request_size_bytes, default 10 MiB. */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/** proxy/src/binary/proxy.rs: sql_over_http_max_response_size_bytes, default 10 MiB. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface Answer {
  status: number;
  /** JSON text, as sent. */
  body: string;
  headers?: Record<string, string>;
}

/** The fields of a Postgres error Neon copies into its answer (sql_over_http.rs `handle`), in its order. */
const POSTGRES_FIELDS = [
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "severity",
  "where",
  "table",
  "column",
  "schema",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

export type PostgresFields = Partial<Record<(typeof POSTGRES_FIELDS)[number], string>>;

/**
 * sql_over_http.rs `handle`: every error but a cancel is answered with all of Postgres's fields;
 * when it did not come from Postgres, `code` and `severity` are "" (Rust's default for a &str) and
 * the others null.
 */
export function errorAnswer(status: number, message: string, postgres?: PostgresFields): Answer {
  const body: Record<string, string | null> = { message };
  for (const field of POSTGRES_FIELDS) body[field] = postgres?.[field] ?? (field === "code" || field === "severity" ? "" : null);
  return { status, body: JSON.stringify(body) };
}

/** error.rs ReadPayloadError::BodyTooLarge: 413, checked on Content-Length, then as the body arrives. */
export const requestTooLarge = () => errorAnswer(413, `request is too large (max is ${MAX_REQUEST_BYTES} bytes)`);

/** sql_over_http.rs SqlOverHttpError::ResponseTooLarge: 507 INSUFFICIENT_STORAGE. */
export const responseTooLarge = () => errorAnswer(507, `response is too large (max is ${MAX_RESPONSE_BYTES} bytes)`);

/** error.rs ReadPayloadError::Parse: a body serde_json refuses is a 400 with no code. */
export const unparsableBody = (reason: string) => errorAnswer(400, `could not parse the HTTP request body: ${reason}`);

/**
 * sql_over_http.rs `handle`, SqlOverHttpError::Cancelled: the client went away (or the proxy shed
 * the connection) and the query was cancelled; the body has these two fields only.
 */
export const cancelled = (): Answer => ({
  status: 400,
  body: JSON.stringify({ message: "Query cancelled, connection was terminated", code: "08P01" }),
});

/**
 * A Postgres error while connecting (serverless/backend.rs HttpConnError::PostgresConnectionError):
 * a database that does not exist (3D000) is the user's error, 400; any other refusal by Postgres
 * (28P01 password, 28000 role) is 500; both with Postgres's fields. No Postgres error at all
 * (unreachable) is 500 with no code (compute/mod.rs COULD_NOT_CONNECT).
 */
export function connectFailed(error: { message: string } & PostgresFields): Answer {
  if (!error.code || !error.severity) return errorAnswer(500, `Couldn't connect to compute node: ${error.message}`);
  return errorAnswer(error.code === "3D000" ? 400 : 500, error.message, error);
}

/**
 * A statement's error (sql_over_http.rs SqlOverHttpError::Postgres) is always 400: with Postgres's
 * fields when Postgres answered, with no code when the connection failed under it.
 */
export function statementFailed(error: { message: string } & PostgresFields): Answer {
  if (!error.code || !error.severity) return errorAnswer(400, `error communicating with the server: ${error.message}`);
  return errorAnswer(400, error.message, error);
}

/**
 * The fault mode: Neon's answers that are not a statement's own error, each as Neon sends it, for
 * a test to ask for (SqlEndpoint.failNext). `user` and `database` are the request's.
 */
export const NEON_FAULTS = {
  "request-too-large": () => requestTooLarge(),
  "response-too-large": () => responseTooLarge(),
  cancelled: () => cancelled(),
  // A lone UTF-16 surrogate escape, as serde_json refuses it.
  "unparsable-body": () => unparsableBody("unexpected end of hex escape at line 1 column 17"),
  // auth/mod.rs AuthError::PasswordFailed: the proxy checks the password itself (User kind, 400, no code).
  "password-failed": (user: string) => errorAnswer(400, `password authentication failed for user '${user}'`),
  // The compute refused the password the proxy passed on (Postgres kind, 500, Postgres's fields).
  "password-refused": (user: string) =>
    connectFailed({
      message: `password authentication failed for user "${user}"`,
      code: "28P01",
      severity: "FATAL",
      routine: "auth_failed",
    }),
  "role-refused": (user: string) =>
    connectFailed({
      message: `role "${user}" is not permitted to log in`,
      code: "28000",
      severity: "FATAL",
      routine: "InitializeSessionUserId",
    }),
  "database-missing": (_user: string, database: string) =>
    connectFailed({ message: `database "${database}" does not exist`, code: "3D000", severity: "FATAL", routine: "InitPostgres" }),
  // The control plane refused to wake the compute (proxy/src/control_plane/errors.rs
  // WakeComputeError::ControlPlane, its message the control plane's user-facing one): the compute
  // time quota used up is ErrorKind::Quota, so 500 (sql_over_http.rs get_http_status_code), with
  // the message Neon sends (its source's fallback, messages.rs for a 423: "endpoint is temporarily
  // unavailable. Check your quotas and/or contact our support.")...
  "quota-exceeded": () =>
    errorAnswer(500, "Your account or project has exceeded the compute time quota. Upgrade your plan to increase limits."),
  // ...and a disabled endpoint (Reason::EndpointDisabled) is the user's, 400, with messages.rs's
  // message for the control plane's 406.
  "endpoint-disabled": () => errorAnswer(400, "Control plane request failed: endpoint is disabled"),
} satisfies Record<string, (user: string, database: string) => Answer>;

export type NeonFault = keyof typeof NEON_FAULTS;
