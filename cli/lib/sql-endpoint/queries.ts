import { connect as connectTcp } from "node:net";
import pg from "pg";
import { cancelled, MAX_RESPONSE_BYTES, responseTooLarge, statementFailed, type Answer } from "./neon-answers.ts";
import type { QueryData } from "./payload.ts";

// Running a request's statements as Neon's proxy does (proxy/src/serverless/sql_over_http.rs:
// QueryData::process, BatchQueryData::process, query_to_json): the answer is written row by row
// and refused (507) once it has passed the limit before a row, counting everything written so far
// (a batch's earlier results too); when the client goes away the running statement is cancelled,
// and a batch's connection dropped, so it rolls back.

/** Values as Postgres sent them (text): the driver parses them itself, by type oid (Neon-Raw-Text-Output). */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

/** How long a cancelled statement is given to stop before its connection is dropped (QueryData::process). */
const CANCEL_WAIT_MS = 100;

/** The answer as Neon writes it, one piece at a time, with its size in bytes so far. */
class JsonOutput {
  private readonly parts: string[] = [];
  bytes = 0;

  push(text: string): void {
    this.parts.push(text);
    this.bytes += Buffer.byteLength(text);
  }

  text(): string {
    return this.parts.join("");
  }
}

class ResponseTooLarge extends Error {}

/** A connection from the pool, and whether it must be dropped instead of returned. */
export interface Connection {
  client: pg.PoolClient;
  broken: boolean;
}

/** One statement, as a request of its own (QueryData::process). `arrayMode` is the request's default (Neon-Array-Mode). */
export async function runSingle(connection: Connection, data: QueryData, arrayMode: boolean, gone: AbortSignal): Promise<Answer> {
  const output = new JsonOutput();
  const running = queryToJson(connection, data, data.arrayMode ?? arrayMode, output);
  const settled = await untilGone(running, gone);
  if (settled === "gone") {
    // cancel_query, then up to 100 ms for the statement to stop: one that stopped because it was
    // cancelled leaves its connection usable; anything else, and it is dropped.
    sendCancel(connection.client);
    const after = await Promise.race([
      running.then(
        () => null,
        (error: unknown) => error,
      ),
      sleep(CANCEL_WAIT_MS).then(() => "timeout"),
    ]);
    if (after === null) return { status: 200, body: output.text() };
    if ((after as { code?: unknown }).code !== "57014") connection.broken = true;
    return cancelled();
  }
  if (settled instanceof Error) return failed(connection, settled);
  return { status: 200, body: output.text() };
}

/** Statements in one transaction (BatchQueryData::process): all commit, or none. */
export async function runBatch(
  connection: Connection,
  queries: QueryData[],
  arrayMode: boolean,
  begin: string,
  gone: AbortSignal,
): Promise<Answer> {
  const { client } = connection;
  const output = new JsonOutput();
  await client.query(begin);
  output.push('{"results":[');
  for (const [index, data] of queries.entries()) {
    if (index > 0) output.push(",");
    const settled = gone.aborted ? "gone" : await untilGone(queryToJson(connection, data, data.arrayMode ?? arrayMode, output), gone);
    if (settled === "gone") {
      // Cancelled, and the connection dropped: Postgres rolls the transaction back.
      sendCancel(client);
      connection.broken = true;
      return cancelled();
    }
    if (settled instanceof Error) {
      // The transaction is dropped, which rolls it back (a 507's still-running statement drops the connection).
      if (!connection.broken) await client.query("rollback").catch(() => (connection.broken = true));
      return failed(connection, settled);
    }
  }
  try {
    await client.query("commit");
  } catch (error) {
    connection.broken = true;
    return failed(connection, error as Error);
  }
  output.push("]}");
  return { status: 200, body: output.text() };
}

function failed(connection: Connection, error: Error): Answer {
  if (error instanceof ResponseTooLarge) return responseTooLarge();
  const fields = error as Error & Record<string, string | undefined>;
  // An error that is not Postgres's (the connection failed under the statement): drop the connection.
  if (!fields.code || !fields.severity) connection.broken = true;
  return statementFailed(fields);
}

/**
 * query_to_json: `{"fields":[...],"rows":[...],"command":...,"rowCount":...,"rowAsArray":...}`
 * written into `output`. Before each row, an output already past the limit is refused (so the last
 * row may carry it past); the statement's connection is then dropped, which stops it.
 */
function queryToJson(connection: Connection, data: QueryData, arrayMode: boolean, output: JsonOutput): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Extended protocol always, as Neon does: one statement per query, parameters as text.
    const query = new pg.Query({
      text: data.query,
      values: data.params,
      rowMode: "array",
      types: RAW_TEXT,
      queryMode: "extended",
    } as pg.QueryConfig);
    let rows = 0;
    let refused = false;
    const start = (result: pg.QueryResult) => {
      const fields = result.fields.map((f) => ({
        name: f.name,
        dataTypeID: f.dataTypeID,
        tableID: f.tableID,
        columnID: f.columnID,
        dataTypeSize: f.dataTypeSize,
        dataTypeModifier: f.dataTypeModifier,
        format: "text",
      }));
      output.push(`{"fields":${JSON.stringify(fields)},"rows":[`);
    };
    query.on("row", (row: (string | null)[], result?: pg.QueryResult) => {
      if (refused) return;
      if (rows === 0) start(result!);
      if (output.bytes > MAX_RESPONSE_BYTES) {
        refused = true;
        connection.broken = true;
        return reject(new ResponseTooLarge());
      }
      output.push((rows++ > 0 ? "," : "") + rowJson(row, result!, arrayMode));
    });
    query.on("error", (error: Error) => (refused ? undefined : reject(error)));
    query.on("end", (result: pg.QueryResult) => {
      if (refused) return;
      if (rows === 0) start(result);
      // sql_over_http.rs: rowCount is the command tag's count (INSERT's second number), else null.
      output.push(
        `],"command":${JSON.stringify(result.command ?? "")},"rowCount":${JSON.stringify(result.rowCount)},"rowAsArray":${arrayMode}}`,
      );
      resolve();
    });
    connection.client.query(query);
  });
}

/** A row as json.rs pg_text_row_to_json writes it in raw-text mode: an array, or an object by column name. */
function rowJson(row: (string | null)[], result: pg.QueryResult, arrayMode: boolean): string {
  if (arrayMode) return JSON.stringify(row);
  return `{${row.map((value, i) => `${JSON.stringify(result.fields[i]!.name)}:${JSON.stringify(value)}`).join(",")}}`;
}

/** The statement's outcome, or "gone" when the client went away first. */
function untilGone(running: Promise<void>, gone: AbortSignal): Promise<"done" | "gone" | Error> {
  return new Promise((resolve) => {
    const onGone = () => resolve("gone");
    gone.addEventListener("abort", onGone, { once: true });
    running
      .then(
        () => resolve("done"),
        (error: unknown) => resolve(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => gone.removeEventListener("abort", onGone));
  });
}

/**
 * Postgres's CancelRequest for the connection's backend, as Neon's cancel_query sends it (and as
 * pg_cancel_backend would from another session): a new connection to the same server carrying the
 * backend's id and secret. Its outcome is seen on the statement, so nothing is awaited here.
 */
function sendCancel(client: pg.PoolClient): void {
  const { processID, secretKey, host, port } = client as unknown as { processID: unknown; secretKey: unknown; host: string; port: number };
  if (typeof processID !== "number" || typeof secretKey !== "number") return;
  const request = Buffer.alloc(16);
  request.writeInt32BE(16, 0);
  request.writeInt32BE(80877102, 4);
  request.writeInt32BE(processID, 8);
  request.writeInt32BE(secretKey, 12);
  const socket = connectTcp({ host, port }, () => socket.end(request));
  socket.on("error", () => socket.destroy());
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
