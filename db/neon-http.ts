import { errorFields, NeonDbError, types } from "@neondatabase/serverless";

// Neon's SQL-over-HTTP protocol, the part the Worker uses (db/client.ts): one statement, or
// statements in one transaction, POSTed to the endpoint with the connection string in a header;
// the answer's values as text, parsed by type. It sends what `neon()` of @neondatabase/serverless
// sends and answers what it answers, the same parsers (its `types`) and the same errors (its
// NeonDbError), without what that driver does again on every statement: parsing the connection
// string four times (two URLs each), eight promises to resolve options we never pass, and an
// object of type overrides per answer. That was 15-20 % of a call's CPU in the Worker's profile
// (bench/results/README.md "CPU per call"). test/unit/neon-http.test.ts holds the two to the same
// requests and answers.

/** One statement as the protocol carries it. */
export interface NeonQuery {
  query: string;
  params: unknown[];
}

/** An answer as Neon sends it with Neon-Raw-Text-Output and Neon-Array-Mode: every value as text. */
interface RawResult {
  fields: { name: string; dataTypeID: number }[];
  rows: (string | null)[][];
}

/** The connection string as Neon reads it, and its endpoint: derived once per database URL. */
export interface NeonTarget {
  connectionString: string;
  hostname: string;
}

/**
 * The driver's reading of a connection string (resolveConnectionParams): a postgres: or
 * postgresql: URL with a user, a host and a database, sent as postgresql: with an
 * application_name unless it names one.
 */
export function neonTargetOf(url: string, applicationName: string): NeonTarget {
  const parsed = asHttpUrl(url);
  if (!parsed.searchParams.has("application_name")) parsed.searchParams.append("application_name", applicationName);
  const connectionString = `postgresql:${parsed.href.slice("http:".length)}`;
  const { username, hostname, pathname } = asHttpUrl(connectionString);
  if (!username || !hostname || hostname === "-" || !pathname || pathname === "/") {
    throw new NeonDbError("Wrong URL scheme or missing user, host or database in connection parameters");
  }
  return { connectionString, hostname };
}

function asHttpUrl(url: string): URL {
  let protocol: string;
  let parsed: URL;
  try {
    protocol = new URL(url).protocol;
    parsed = new URL(`http:${url.slice(protocol.length)}`);
  } catch {
    throw new NeonDbError(`Database connection string provided to neon() is not a valid URL (connection string: ${url})`);
  }
  if (protocol !== "postgres:" && protocol !== "postgresql:") {
    throw new NeonDbError("Wrong URL scheme or missing user, host or database in connection parameters");
  }
  return parsed;
}

/** Where and how a statement is sent: the endpoint, the connection string, and when to give up waiting. */
export interface NeonRequest {
  endpoint: string;
  target: NeonTarget;
  signal: AbortSignal;
}

/** One statement's rows, as `neon(url, { fullResults: true }).query()` answers them. */
export async function neonQuery(request: NeonRequest, statement: NeonQuery): Promise<Record<string, unknown>[]> {
  return rowsOf((await post(request, preparedQuery(statement))) as RawResult);
}

/** Statements in one transaction (every one commits, or none), each one's rows, as the driver's `transaction()`. */
export async function neonTransaction(request: NeonRequest, statements: NeonQuery[]): Promise<Record<string, unknown>[][]> {
  const { results } = (await post(request, { queries: statements.map(preparedQuery) })) as { results?: RawResult[] };
  if (!Array.isArray(results)) throw new NeonDbError("Neon internal error: unexpected result format");
  return results.map(rowsOf);
}

/**
 * The driver's request and its errors: a 400 is a NeonDbError with Postgres's fields, any other
 * failure status a NeonDbError naming it, a request that got no answer a NeonDbError "Error
 * connecting to database".
 */
async function post({ endpoint, target, signal }: NeonRequest, payload: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: "POST",
      body: JSON.stringify(payload),
      headers: { "Neon-Connection-String": target.connectionString, "Neon-Raw-Text-Output": "true", "Neon-Array-Mode": "true" },
      signal,
    });
  } catch (error) {
    throw Object.assign(new NeonDbError(`Error connecting to database: ${error}`), { sourceError: error });
  }
  if (response.ok) return response.json();
  if (response.status === 400) {
    // Postgres's fields, which the driver copies onto its error (its errorFields).
    const fields = (await response.json()) as Record<string, string | undefined>;
    const error = new NeonDbError(fields.message!);
    for (const field of errorFields) error[field] = fields[field] ?? undefined;
    throw error;
  }
  throw new NeonDbError(`Server error (HTTP status ${response.status}): ${await response.text()}`);
}

/** Each row as an object of its columns, each value parsed by its type (the driver's parsers). */
function rowsOf(result: RawResult): Record<string, unknown>[] {
  const names = result.fields.map((field) => field.name);
  const parsers = result.fields.map((field) => types.getTypeParser(field.dataTypeID, "text") as (text: string) => unknown);
  return result.rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < values.length; i++) {
      const value = values[i]!;
      row[names[i]!] = value === null ? null : parsers[i]!(value);
    }
    return row;
  });
}

const preparedQuery = ({ query, params }: NeonQuery): NeonQuery => ({ query, params: params.map(prepareValue) });

/**
 * A parameter as the driver sends it (node-postgres's prepareValue, then bytes as bytea's hex):
 * null for null and undefined, text for the rest; an array as an array literal, an object as JSON.
 */
function prepareValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object") return String(value);
  if (ArrayBuffer.isView(value)) return `\\x${hexOf(value)}`;
  if (value instanceof Date) return dateToString(value);
  if (Array.isArray(value)) return arrayLiteral(value);
  const own = value as { toPostgres?: (prepare: typeof prepareValue) => unknown };
  if (typeof own.toPostgres === "function") return prepareValue(own.toPostgres(prepareValue));
  return JSON.stringify(value);
}

function hexOf(view: ArrayBufferView): string {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** node-postgres's arrayString: `{a,"b c",NULL}`, every element quoted. */
function arrayLiteral(values: unknown[]): string {
  const items = values.map((item) => {
    if (item === null || item === undefined) return "NULL";
    if (Array.isArray(item)) return arrayLiteral(item);
    if (ArrayBuffer.isView(item)) return `\\\\x${hexOf(item)}`;
    return `"${String(prepareValue(item)).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  });
  return `{${items.join(",")}}`;
}

/** node-postgres's dateToString: local time with its offset, as the driver sends a Date. */
function dateToString(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  let year = date.getFullYear();
  const bc = year < 1;
  if (bc) year = Math.abs(year) + 1;
  let offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? "-" : "+";
  offset = Math.abs(offset);
  const day = `${pad(year, 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
  return `${day}T${time}${sign}${pad(Math.floor(offset / 60))}:${pad(offset % 60)}${bc ? " BC" : ""}`;
}
