// Neon's own error answers, written out from its proxy's source (neondatabase/neon,
// proxy/src/serverless/sql_over_http.rs `handle` builds every body; error.rs, backend.rs and
// proxy/src/auth/mod.rs give statuses and messages), independently of the local SQL endpoint
// that imitates them. The conformance test (neon-proxy.test.ts) holds the endpoint, and real Neon
// when NEON_TEST_URL is set, to them; the unit test of the API's mapping (test/unit/
// database-errors.test.ts) and the Worker's (test/protection/neon-errors.test.ts) answer them.

/** The fields of an error that did not come from Postgres: code and severity "" (Rust's default), the rest null. */
const NOT_FROM_POSTGRES = {
  code: "",
  detail: null,
  hint: null,
  position: null,
  internalPosition: null,
  internalQuery: null,
  severity: "",
  where: null,
  table: null,
  column: null,
  schema: null,
  dataType: null,
  constraint: null,
  file: null,
  line: null,
  routine: null,
};

export const proxyError = (message: string) => ({ message, ...NOT_FROM_POSTGRES });

/** A Postgres error refusing the connection, as Neon passes its fields on (file and line vary with the server's version). */
const connectRefusal = (message: string, code: string, routine: string) => ({
  message,
  ...NOT_FROM_POSTGRES,
  code,
  severity: "FATAL",
  routine,
});

export interface NeonAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** What the API answers to each (docs/api.md "What the database's failures answer"). */
export type ApiAnswer =
  { status: 500; code: "internal_error" } | { status: 503; code: "unavailable"; reason?: "database_quota_exceeded" | "database_disabled" };
const REFUSED: ApiAnswer = { status: 500, code: "internal_error" };
const UNAVAILABLE: ApiAnswer = { status: 503, code: "unavailable" };

/** Neon's error answers for a request as `user` to `database`, each with what the API answers to it. */
export function neonErrors(user: string, database: string) {
  return {
    // error.rs ReadPayloadError::BodyTooLarge.
    "request-too-large": { status: 413, body: proxyError("request is too large (max is 10485760 bytes)"), api: REFUSED },
    // sql_over_http.rs SqlOverHttpError::ResponseTooLarge.
    "response-too-large": { status: 507, body: proxyError("response is too large (max is 10485760 bytes)"), api: REFUSED },
    // error.rs ReadPayloadError::Parse, with serde_json's error for `{"title":"\ud800"}`.
    "unparsable-body": {
      status: 400,
      body: proxyError("could not parse the HTTP request body: unexpected end of hex escape at line 1 column 17"),
      api: REFUSED,
    },
    // sql_over_http.rs SqlOverHttpError::Cancelled: two fields only.
    cancelled: { status: 400, body: { message: "Query cancelled, connection was terminated", code: "08P01" }, api: UNAVAILABLE },
    // auth/mod.rs AuthError::PasswordFailed: the proxy checks the password itself (a User error).
    "password-failed": { status: 400, body: proxyError(`password authentication failed for user '${user}'`), api: REFUSED },
    // backend.rs HttpConnError::PostgresConnectionError: Postgres refused the connection (a Postgres error, 500)...
    "password-refused": {
      status: 500,
      body: connectRefusal(`password authentication failed for user "${user}"`, "28P01", "auth_failed"),
      api: REFUSED,
    },
    "role-refused": {
      status: 500,
      body: connectRefusal(`role "${user}" is not permitted to log in`, "28000", "InitializeSessionUserId"),
      api: REFUSED,
    },
    // ...but a database that does not exist is the user's error, 400.
    "database-missing": {
      status: 400,
      body: connectRefusal(`database "${database}" does not exist`, "3D000", "InitPostgres"),
      api: REFUSED,
    },
    // compute/mod.rs COULD_NOT_CONNECT: nothing answered (a Compute error, 500).
    unreachable: { status: 500, body: proxyError("Couldn't connect to compute node: Connection refused (os error 111)"), api: UNAVAILABLE },
    // control_plane/errors.rs WakeComputeError::ControlPlane: the compute time quota used up
    // (ErrorKind::Quota, 500; the control plane's message)...
    "quota-exceeded": {
      status: 500,
      body: proxyError("Your account or project has exceeded the compute time quota. Upgrade your plan to increase limits."),
      api: { status: 503, code: "unavailable", reason: "database_quota_exceeded" },
    },
    // ...and the endpoint disabled (Reason::EndpointDisabled, ErrorKind::User, 400; messages.rs's message for a 406).
    "endpoint-disabled": {
      status: 400,
      body: proxyError("Control plane request failed: endpoint is disabled"),
      api: { status: 503, code: "unavailable", reason: "database_disabled" },
    },
    // SqlOverHttpError::Postgres with no Postgres error in it: the connection failed under the statement.
    "connection-lost": { status: 400, body: proxyError("connection closed"), api: UNAVAILABLE },
  } satisfies Record<string, NeonAnswer & { api: ApiAnswer }>;
}

export type NeonError = keyof ReturnType<typeof neonErrors>;
