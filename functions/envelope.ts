import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { encodeCursor } from "../db/queries/paging.ts";
import type { AppEnv } from "./env.ts";
import type { WriteResult } from "../db/queries/records.ts";
import { publishAfterCommit } from "./lib/realtime.ts";

// The seed's envelope: { success, version, message, data } and, on lists, count and nextCursor.

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

/** One record, with its version as the ETag (send it back in If-Match). */
export function sendRecord(c: Context<AppEnv>, record: { version?: number }, message: string, status: 200 | 201 = 200) {
  if (typeof record.version === "number") c.header("ETag", `"${record.version}"`);
  return c.json({ success: true, version: "v1", message, data: record }, status);
}

/** A committed write: its event goes to the realtime room after the response, then the record is sent. */
export function sendWrite(c: Context<AppEnv>, result: WriteResult<{ version?: number }>, message: string, status: 200 | 201 = 200) {
  if (result.event) publishAfterCommit(c, result.event);
  if (result.replayed) c.header("Idempotent-Replayed", "true");
  return sendRecord(c, result.record, message, status);
}

/** A page of records; nextCursor and a Link rel="next" header when there is more. */
export function sendList(
  c: Context<AppEnv>,
  page: { records: { createdAt: string; id: string }[]; hasMore: boolean },
  noun: [singular: string, plural: string],
) {
  const last = page.records.at(-1);
  const nextCursor = page.hasMore && last ? encodeCursor(last) : null;
  if (nextCursor) {
    const next = new URL(c.req.url);
    next.searchParams.set("cursor", nextCursor);
    c.header("Link", `<${next.toString()}>; rel="next"`);
  }
  const count = page.records.length;
  return c.json({
    success: true,
    version: "v1",
    message: `${count} ${count === 1 ? noun[0] : noun[1]}`,
    count,
    data: page.records,
    nextCursor,
  });
}
