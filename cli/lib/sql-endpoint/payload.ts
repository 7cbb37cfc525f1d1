import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { MAX_REQUEST_BYTES, requestTooLarge, unparsableBody, type Answer } from "./neon-answers.ts";

// The request body, read and parsed as Neon's proxy does (proxy/src/http/mod.rs
// read_body_with_limit; proxy/src/serverless/sql_over_http.rs Payload, parsed by serde_json).

export interface QueryData {
  query: string;
  /** As Postgres text (json.rs json_to_pg_text); null is SQL NULL. */
  params: (string | null)[];
  arrayMode?: boolean | undefined;
}

export type Payload = { single: QueryData } | { batch: QueryData[] };

/**
 * http/mod.rs read_body_with_limit: a Content-Length over the limit is refused before anything is
 * read, then the body is counted as it arrives and refused once past it (413).
 */
export async function readBody(request: IncomingMessage): Promise<Buffer | Answer> {
  if (Number(request.headers["content-length"] ?? 0) > MAX_REQUEST_BYTES) return requestTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return requestTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * serde_json::from_slice into sql_over_http.rs `Payload`: a single query or `{ queries }`. What it
 * refuses is a 400 with no code (error.rs ReadPayloadError::Parse), JSON.parse's wording aside.
 * Unlike JSON.parse, serde_json refuses a string holding a lone UTF-16 surrogate escape ("\ud800"),
 * which the driver sends for a JavaScript string holding one (JSON.stringify escapes it so).
 */
export function parsePayload(body: Buffer): Payload | Answer {
  // serde_json reads UTF-8 only (its error for anything else is "invalid unicode code point").
  if (!isUtf8(body)) return unparsableBody("invalid unicode code point");
  const text = body.toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return unparsableBody((error as Error).message);
  }
  const surrogate = loneSurrogate(text);
  if (surrogate) return unparsableBody(surrogate);
  // `Payload` is an untagged enum: the single query is tried first, then the batch.
  const single = queryData(json);
  if (single) return { single };
  const queries = (json as { queries?: unknown } | null)?.queries;
  const batch = Array.isArray(queries) ? queries.map(queryData) : null;
  if (batch && batch.every((q) => q !== null)) return { batch: batch as QueryData[] };
  return unparsableBody("data did not match any variant of untagged enum Payload");
}

function queryData(value: unknown): QueryData | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { query, params = [], arrayMode } = value as Record<string, unknown>;
  if (typeof query !== "string" || !Array.isArray(params)) return null;
  if (arrayMode !== undefined && arrayMode !== null && typeof arrayMode !== "boolean") return null;
  return { query, params: params.map(toPgText), arrayMode: arrayMode ?? undefined };
}

/** json.rs json_value_to_pg_text: strings as they are, arrays as Postgres array literals, anything else as JSON text. */
function toPgText(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return toPgArray(value);
  return JSON.stringify(value);
}

/** json.rs json_array_to_pg_array: elements as JSON text (strings quoted and escaped), objects as quoted JSON. */
function toPgArray(value: unknown): string | null {
  if (value === null) return null;
  if (Array.isArray(value)) return `{${value.map((element) => toPgArray(element) ?? "NULL").join(",")}}`;
  return JSON.stringify(typeof value === "object" ? JSON.stringify(value) : value);
}

/**
 * serde_json's refusal of a string escape that is not a whole UTF-16 pair (its read.rs
 * parse_escape): a trailing surrogate alone, or a leading one not followed by `\u` and a trailing
 * one. Its position is the byte after what serde_json had read, as its errors report it.
 */
function loneSurrogate(text: string): string | null {
  if (!/\\u[dD][89a-fA-F]/.test(text)) return null;
  // The text is valid JSON, so every backslash starts an escape: reading them in order is exact.
  const escapes = /\\(?:u([0-9a-fA-F]{4})|[^u])/g;
  for (let match = escapes.exec(text); match; match = escapes.exec(text)) {
    const unit = match[1] === undefined ? -1 : parseInt(match[1], 16);
    const end = match.index + match[0].length;
    if (unit >= 0xdc00 && unit <= 0xdfff) return at(text, end, "lone leading surrogate in hex escape");
    if (unit < 0xd800 || unit > 0xdbff) continue;
    if (text[end] !== "\\") return at(text, end + 1, "unexpected end of hex escape");
    if (text[end + 1] !== "u") return at(text, end + 2, "unexpected end of hex escape");
    const next = parseInt(text.slice(end + 2, end + 6), 16);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return at(text, end + 6, "lone leading surrogate in hex escape");
    escapes.lastIndex = end + 6;
  }
  return null;
}

/** serde_json's "<reason> at line L column C": C counts the bytes read on that line. */
function at(text: string, index: number, reason: string): string {
  const lineStart = text.lastIndexOf("\n", index - 1) + 1;
  const line = 1 + (text.slice(0, lineStart).match(/\n/g)?.length ?? 0);
  return `${reason} at line ${line} column ${Buffer.byteLength(text.slice(lineStart, index))}`;
}
