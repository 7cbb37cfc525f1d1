import type { SQL } from "drizzle-orm";
import { ANSWER_BYTES } from "../../../domain/limits.ts";
import { sql } from "./sql-tag.ts";

// How much one statement may answer. Neon's SQL-over-HTTP proxy refuses a response past 10 MiB
// with 507 "response is too large" (proxy/src/binary/proxy.rs: sql_over_http_max_response_size_bytes;
// proxy/src/serverless/sql_over_http.rs: checked before each row is added, the count covering a
// whole batch), and it sends every value as a JSON string, so a JSON value's quotes and
// backslashes are escaped again: up to twice its size on the wire. Reads that answer many records
// or events (a list, the feed, the sweep, a room's gap fill) stop at this many bytes of JSON as
// well as at their count, and say there is more, so no answer can reach the proxy's limit.

/** Bytes of records or events one statement answers at most (beyond the first, which is always answered). */
export { ANSWER_BYTES } from "../../../domain/limits.ts";

/**
 * The running size of `value` over rows in `order`: a window column to compare with ANSWER_BYTES.
 * pg_column_size of a json value is its text's length plus a small header, read without
 * serialising it again.
 */
export const runningBytes = (value: SQL, order: SQL) =>
  sql`sum(pg_column_size(${value})) over (order by ${order} rows between unbounded preceding and current row)`;

/** Over rows `alias` numbered from 1 (`n`) with their running size (`bytes`): the first row, and every next one while the size fits. */
export const fitsAnswer = (alias: string) => sql.raw(`(${alias}.n = 1 or ${alias}.bytes <= ${ANSWER_BYTES})`);
