import { DomainError } from "../../domain/errors.ts";

/**
 * If-Match as a record version: `"3"`, `W/"3"` or `3`. `*` (any current version) and no header
 * both mean "no precondition". Anything else is refused rather than ignored.
 */
export function parseIfMatch(header: string | undefined): number | null {
  if (header === undefined || header.trim() === "*") return null;
  const match = header.length <= 64 ? /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header) : null;
  if (!match) throw new DomainError("invalid_field", 'If-Match must be a version as sent in the ETag, e.g. "3"', { field: "If-Match" });
  return Number(match[1]);
}
