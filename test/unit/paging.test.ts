import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, type SortKey } from "../../domain/paging.ts";

// domain/paging.ts writes a cursor's base64url itself: it must be the standard unpadded base64url
// of the text's UTF-8 (what the cursors written before were), for every length and any text.

const ID = "01a21dbb-be7d-7c38-b9b6-b4ae693f1c8c";
const standard = (text: string) => Buffer.from(text, "utf8").toString("base64url");

describe("cursors", () => {
  it("creation order: base64url of createdAt|id, read back", () => {
    const end = { values: ["2026-11-27T16:07:26.381Z"], id: ID };
    const cursor = encodeCursor([], end);
    expect(cursor).toBe(standard(`2026-11-27T16:07:26.381Z|${ID}`));
    expect(decodeCursor(cursor, [], {})).toEqual(end);
  });

  it("sorted: base64url of the JSON, with any text (every length mod 3, accents, emoji), read back", () => {
    const sort: SortKey[] = [{ field: "title", descending: true }];
    for (const title of ["", "a", "ab", "abc", "Ünïcødé ✓", "😀 over €", "x".repeat(301)]) {
      const end = { values: [title], id: ID };
      const cursor = encodeCursor(sort, end);
      expect(cursor).toBe(standard(JSON.stringify({ sort: "-title", values: [title], id: ID })));
      expect(decodeCursor(cursor, sort, { title: "text" })).toEqual(end);
    }
  });
});
