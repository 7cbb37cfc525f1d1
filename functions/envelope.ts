import { z } from "@hono/zod-openapi";
import { encodeCursor } from "../domain/paging.ts";
import type { WriteResult } from "../services/settle.ts";

// The envelope every answer travels in: { success, version, message, data } and, on lists, count
// and nextCursor. The reply builders below are what handlers return; their bodies are checked
// against the route's declared schema when the handler compiles.

export function recordEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({
    success: z.literal(true),
    version: z.literal("v1"),
    message: z.string(),
    data: schema,
  });
}

export function listEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({
    success: z.literal(true),
    version: z.literal("v1"),
    message: z.string().openapi({ example: "3 tasks" }),
    count: z.number().int().openapi({ description: "Items on this page.", example: 3 }),
    data: z.array(schema),
    nextCursor: z.string().nullable().openapi({ description: "Pass as ?cursor= for the next page; null on the last page." }),
  });
}

/** Data in the envelope, with a message. */
export function reply<Data>(data: Data, message: string, headers: Record<string, string> = {}) {
  return { body: { success: true as const, version: "v1" as const, message, data }, headers };
}

/** One record, with its version as the ETag (send it back in If-Match). */
export function recordReply<Data extends { version: number }>(record: Data, message: string) {
  return reply(record, message, { ETag: `"${record.version}"` });
}

/** A committed write: the record, and `Idempotent-Replayed` when it is the stored first answer. */
export function writeReply<Data extends { version: number }>(result: WriteResult<Data>, message: string) {
  const answer = recordReply(result.record, message);
  if (result.replayed) answer.headers["Idempotent-Replayed"] = "true";
  return answer;
}

/** A page of records; nextCursor and a Link rel="next" header when there is more. */
export function listReply<Data extends { createdAt: string; id: string }>(
  requestUrl: string,
  page: { records: Data[]; hasMore: boolean },
  noun: [singular: string, plural: string],
) {
  const last = page.records.at(-1);
  const nextCursor = page.hasMore && last ? encodeCursor(last) : null;
  const headers: Record<string, string> = {};
  if (nextCursor) {
    const next = new URL(requestUrl);
    next.searchParams.set("cursor", nextCursor);
    headers.Link = `<${next.toString()}>; rel="next"`;
  }
  const count = page.records.length;
  return {
    body: { success: true as const, version: "v1" as const, message: `${count} ${count === 1 ? noun[0] : noun[1]}`, count, data: page.records, nextCursor },
    headers,
  };
}
