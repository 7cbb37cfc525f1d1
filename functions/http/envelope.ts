import { z } from "@hono/zod-openapi";
import { JsonText } from "../../domain/json-text.ts";
import { encodeCursor, type PageEnd, type SortKey } from "../../domain/paging.ts";
import type { WriteResult } from "../../services/settle.ts";
import { RESPONSE_HEADERS } from "./headers.ts";

// The envelope every answer travels in: { success, version, message, changeVersion, data } and, on
// lists, count and nextCursor. The reply builders below are what handlers return; their bodies are
// checked against the route's declared schema when the handler compiles. changeVersion is stamped
// by the route runner (functions/http/handler.ts) from what the call's statements observed, so a handler never
// passes it on by hand.

const ChangeVersion = z.number().int().min(0).openapi({
  description:
    "The organisation's changeVersion this answer is exact for. A read: the counter as of the statement that read the data, so a snapshot followed by GET /v1/events?after=<it> misses and repeats nothing. A write: the value the write produced (the current one when it changed nothing).",
  example: 42,
});

/** The envelope's fields before `data`: an answer with more top-level fields extends it. */
export function envelope<Shape extends z.ZodRawShape>(shape: Shape, message = z.string()) {
  return z.object({ success: z.literal(true), version: z.literal("v1"), message, changeVersion: ChangeVersion, ...shape });
}

export const recordEnvelope = <T extends z.ZodType>(schema: T) => envelope({ data: schema });

export function listEnvelope<T extends z.ZodType>(schema: T) {
  return envelope(
    {
      count: z.number().int().openapi({ description: "Items on this page.", example: 3 }),
      data: z.array(schema),
      nextCursor: z.string().nullable().openapi({ description: "Pass as ?cursor= for the next page; null on the last page." }),
    },
    z.string().openapi({ example: "3 tasks" }),
  );
}

/**
 * The answer as sent: changeVersion after message, as the document lists it. A body that set its
 * own keeps it.
 */
export function stamped(body: Record<string, unknown>, changeVersion: number | undefined): Record<string, unknown> {
  if (body.success !== true || (changeVersion === undefined && body.changeVersion === undefined)) return body;
  const { success, version, message, changeVersion: own, ...rest } = body;
  return { success, version, message, changeVersion: own ?? changeVersion, ...rest };
}

/** Data in the envelope, with a message. */
export function reply<Data>(data: Data, message: string, headers: Record<string, string> = {}) {
  return { body: { success: true as const, version: "v1" as const, message, data }, headers };
}

/** One record, with its version as the ETag (send it back in If-Match). */
export function recordReply<Data extends { version: number }>(record: Data, message: string) {
  return reply(record, message, { [RESPONSE_HEADERS.etag.name]: `"${record.version}"` });
}

/** A committed write: the record, and `Idempotent-Replayed` when it is the stored first answer. */
export function writeReply<Data extends { version: number }>(result: WriteResult<Data>, message: string) {
  const answer = recordReply(result.record, message);
  if (result.replayed) answer.headers[RESPONSE_HEADERS.idempotentReplayed.name] = "true";
  return answer;
}

/** A `Link: <this request, with param=cursor>; rel="next"` header when there is a next page. */
export function nextLink(requestUrl: string, param: string, cursor: string | null): Record<string, string> {
  if (!cursor) return {};
  const next = new URL(requestUrl);
  next.searchParams.set(param, cursor);
  return { [RESPONSE_HEADERS.link.name]: `<${next.toString()}>; rel="next"` };
}

/** A page as a list statement answers it: its records as JSON text (domain/json-text.ts), how many, and where it ended. */
export interface TextPage<Data> {
  records: JsonText<Data[]>;
  count: number;
  hasMore: boolean;
  end: PageEnd | null;
}

/**
 * A page of records; nextCursor and a Link rel="next" header when there is more. The cursor is
 * where the page ended in its `sort` (as the list statement reported it, or, in creation order,
 * the last record's createdAt and id).
 */
export function listReply<Data>(
  requestUrl: string,
  page: { records: Data[]; hasMore: boolean; end?: PageEnd | null } | TextPage<Data>,
  noun: readonly [singular: string, plural: string],
  sort: SortKey[] = [],
) {
  // A page of JSON text says how many it holds; an array is counted, and its last record may say where it ended.
  const count = "count" in page ? page.count : page.records.length;
  const last = "count" in page ? undefined : (page.records.at(-1) as { createdAt?: string; id?: string } | undefined);
  const end = page.end ?? (last?.createdAt && last.id ? { values: [last.createdAt], id: last.id } : null);
  const nextCursor = page.hasMore && end ? encodeCursor(sort, end) : null;
  const headers = nextLink(requestUrl, "cursor", nextCursor);
  return {
    body: {
      success: true as const,
      version: "v1" as const,
      message: `${count} ${count === 1 ? noun[0] : noun[1]}`,
      count,
      data: page.records,
      nextCursor,
    },
    headers,
  };
}

/** A list answered whole (no paging): how many, and every item. */
export const wholeListEnvelope = <T extends z.ZodType>(schema: T) => envelope({ count: z.number().int(), data: z.array(schema) });

/** A list answered whole, with its count and a message naming the noun. */
export function wholeListReply<T>(items: T[], noun: readonly [singular: string, plural: string]) {
  const count = items.length;
  return {
    body: { success: true as const, version: "v1" as const, message: `${count} ${count === 1 ? noun[0] : noun[1]}`, count, data: items },
  };
}

/** An answer with no data: what was asked is done. */
export const emptyEnvelope = envelope({ data: z.null() });

/**
 * The JSON text of an answer: JSON.stringify's, except that a top-level field holding JSON text
 * the database built is written as it is.
 */
export function serialised(body: Record<string, unknown>): string {
  let text = "";
  for (const [key, value] of Object.entries(body)) {
    const json = value instanceof JsonText ? value.text : JSON.stringify(value);
    if (json !== undefined) text += `${text ? "," : ""}${JSON.stringify(key)}:${json}`;
  }
  return `{${text}}`;
}

/**
 * A page of events (GET /v1/events, a record's history): the cursor is the last event's
 * changeVersion, passed back as `param` (after, or cursor), with a Link rel="next".
 */
export function eventsReply<Event extends { changeVersion: number }>(
  requestUrl: string,
  page: { events: Event[]; hasMore: boolean },
  param: "after" | "cursor",
) {
  const last = page.events.at(-1);
  const nextCursor = page.hasMore && last ? String(last.changeVersion) : null;
  const headers = nextLink(requestUrl, param, nextCursor);
  const count = page.events.length;
  return {
    // The typed events (schemas/event-types.ts) are checked against every answer by the tests.
    body: {
      success: true as const,
      version: "v1" as const,
      message: `${count} ${count === 1 ? "event" : "events"}`,
      count,
      data: page.events as (Event & Record<string, unknown>)[],
      nextCursor,
    },
    headers,
  };
}
