import { UUID_PATTERN } from "./ids.ts";
import { DomainError } from "./errors.ts";

/** What a list call asks for: a page size and where the previous page ended. */
export interface PageRequest {
  limit: number;
  after: { createdAt: string; id: string } | null;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A timestamp as the API writes them, naming a real instant Postgres can read (no 2026-02-30, no year 0). */
function isTimestamp(text: string): boolean {
  if (!TIMESTAMP.test(text) || text.startsWith("0000")) return false;
  const date = new Date(text);
  return !Number.isNaN(date.getTime()) && date.toISOString() === text;
}

// The cursor is opaque to clients: base64url of "<createdAt>|<id>" of the last record served.
export function encodeCursor(record: { createdAt: string; id: string }): string {
  return btoa(`${record.createdAt}|${record.id}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  let text = "";
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    // fall through to the refusal below
  }
  const [createdAt = "", id = ""] = text.split("|");
  if (!isTimestamp(createdAt) || !UUID_PATTERN.test(id)) {
    throw new DomainError("invalid_field", "cursor is not a cursor this API returned", { field: "cursor" });
  }
  return { createdAt, id };
}

export function pageRequest(query: { limit: number; cursor?: string | undefined }): PageRequest {
  return { limit: query.limit, after: query.cursor ? decodeCursor(query.cursor) : null };
}
