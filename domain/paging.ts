import { DomainError } from "./errors.ts";
import { UUID_PATTERN } from "./ids.ts";

// Lists are keyset-paged: a page ends at a record, and the next page starts after it in the list's
// order. The order is creation order unless ?sort= names fields; either way the record's id breaks
// ties, so the order is total and a cursor is exact: paging never repeats nor skips a record whose
// sort values did not change meanwhile.

/**
 * How a field sorts: by its value as text, date or instant, or by its place in a list (a task's
 * priority sorts low < medium < high < urgent, not alphabetically).
 */
export type SortKind = "text" | "date" | "timestamp" | { rank: readonly string[] };

/** The fields a list may be sorted by, each with how it sorts. */
export type Sortable = Readonly<Record<string, SortKind>>;

export interface SortKey {
  field: string;
  descending: boolean;
}

/** The value of a sort key as the API writes it (a date, an instant, a status); null for an empty field. */
export type SortValue = string | null;

/** What a list call asks for: a page size, an order, and where the previous page ended. */
export interface PageRequest {
  limit: number;
  /** The ?sort= keys; empty for creation order. */
  sort: SortKey[];
  /** The previous page's last record: its values of the sort keys (its createdAt in creation order) and its id. */
  after: { values: SortValue[]; id: string } | null;
}

/** Where a page ended, as a list statement reports it: the last record's sort values and id. */
export type PageEnd = NonNullable<PageRequest["after"]>;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A timestamp as the API writes them, naming a real instant Postgres can read (no 2026-02-30, no year 0). */
function isTimestamp(text: string): boolean {
  if (!TIMESTAMP.test(text) || text.startsWith("0000")) return false;
  const date = new Date(text);
  return !Number.isNaN(date.getTime()) && date.toISOString() === text;
}

function isDate(text: string): boolean {
  return DATE.test(text) && !text.startsWith("0000") && isTimestamp(`${text}T00:00:00.000Z`);
}

/** A cursor value fits its key: every value that reaches SQL is parsed first. */
function fits(kind: SortKind, value: unknown): value is SortValue {
  if (value === null) return true;
  if (typeof value !== "string") return false;
  if (kind === "date") return isDate(value);
  if (kind === "timestamp") return isTimestamp(value);
  if (kind === "text") return value.length <= 10_000;
  return kind.rank.includes(value);
}

const invalidSort = (message: string) => new DomainError("invalid_field", message, { field: "sort" });
const invalidCursor = () => new DomainError("invalid_field", "cursor is not a cursor this API returned for this sort", { field: "cursor" });

/** `?sort=dueDate,-priority` as keys; an unknown or repeated field is refused, naming the ones there are. */
export function parseSort(text: string | undefined, sortable: Sortable): SortKey[] {
  if (text === undefined) return [];
  const keys = text.split(",").map((part) => ({ field: part.replace(/^-/, ""), descending: part.startsWith("-") }));
  for (const { field } of keys) {
    if (!Object.hasOwn(sortable, field))
      throw invalidSort(`sort: ${field || "an empty field"} is not a field this list sorts by (${Object.keys(sortable).join(", ")})`);
  }
  if (new Set(keys.map((k) => k.field)).size !== keys.length) throw invalidSort("sort names a field twice");
  return keys;
}

/** The ?sort= value of keys, as a client writes it. */
export const sortText = (sort: SortKey[]) => sort.map((k) => `${k.descending ? "-" : ""}${k.field}`).join(",");

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Unpadded base64url of the text's UTF-8, three bytes to four characters. Every page with more
 * writes a cursor: through btoa, a spread of the bytes and three replaces it was 4 % of a list's
 * CPU in the Worker's profile (bench/results/README.md "CPU per call"), this way a quarter of that.
 */
function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += BASE64URL[n >> 18]! + BASE64URL[(n >> 12) & 63]!;
    if (i + 1 < bytes.length) out += BASE64URL[(n >> 6) & 63]!;
    if (i + 2 < bytes.length) out += BASE64URL[n & 63]!;
  }
  return out;
}
const fromBase64url = (text: string) =>
  new TextDecoder().decode(Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));

// The cursor is opaque to clients. In creation order: base64url of "<createdAt>|<id>" of the last
// record served. Sorted: base64url of JSON { sort, values, id }, so a cursor is refused under
// another sort than the one it was made for.
export function encodeCursor(sort: SortKey[], end: PageEnd): string {
  if (sort.length === 0) return base64url(`${end.values[0]}|${end.id}`);
  return base64url(JSON.stringify({ sort: sortText(sort), values: end.values, id: end.id }));
}

export function decodeCursor(cursor: string, sort: SortKey[], sortable: Sortable): PageEnd {
  let text: string;
  try {
    text = fromBase64url(cursor);
  } catch {
    throw invalidCursor();
  }
  if (sort.length === 0) {
    const [createdAt = "", id = ""] = text.split("|");
    if (!isTimestamp(createdAt) || !UUID_PATTERN.test(id)) throw invalidCursor();
    return { values: [createdAt], id };
  }
  let parsed: { sort?: unknown; values?: unknown; id?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw invalidCursor();
  }
  const { values, id } = parsed ?? {};
  if (
    parsed?.sort !== sortText(sort) ||
    typeof id !== "string" ||
    !UUID_PATTERN.test(id) ||
    !Array.isArray(values) ||
    values.length !== sort.length
  )
    throw invalidCursor();
  if (!sort.every((key, i) => fits(sortable[key.field]!, values[i]))) throw invalidCursor();
  return { values: values as SortValue[], id };
}

/** A list request from its query: the sort checked against what the list sorts by, the cursor against the sort. */
export function pageRequest(
  query: { limit: number; cursor?: string | undefined; sort?: string | undefined },
  sortable: Sortable = {},
): PageRequest {
  const sort = parseSort(query.sort, sortable);
  return { limit: query.limit, sort, after: query.cursor ? decodeCursor(query.cursor, sort, sortable) : null };
}
