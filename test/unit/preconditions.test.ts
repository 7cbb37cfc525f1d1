import { describe, expect, it } from "vitest";
import { DomainError } from "../../domain/errors.ts";
import { parseIfMatch } from "../../functions/http/preconditions.ts";

// functions/http/preconditions.ts: If-Match as a record version (docs/api.md "Idempotency and concurrency").

function refusal(header: string): DomainError {
  try {
    parseIfMatch(header);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(header)} was accepted`);
}

describe("parseIfMatch", () => {
  it("no header and * mean no precondition", () => {
    expect(parseIfMatch(undefined)).toBeNull();
    expect(parseIfMatch("*")).toBeNull();
    expect(parseIfMatch("  *  ")).toBeNull();
  });

  it('takes "3", W/"3" and 3, with blanks around', () => {
    expect(parseIfMatch('"3"')).toBe(3);
    expect(parseIfMatch('W/"3"')).toBe(3);
    expect(parseIfMatch("3")).toBe(3);
    expect(parseIfMatch(' "42" ')).toBe(42);
    expect(parseIfMatch('\tW/"7"\t')).toBe(7);
    expect(parseIfMatch('"0"')).toBe(0);
    expect(parseIfMatch('"123456789"')).toBe(123456789);
    expect(parseIfMatch('"007"')).toBe(7);
  });

  it("refuses anything else with 400 invalid_field naming If-Match", () => {
    const refused = [
      "",
      " ",
      '""',
      "**",
      "* 3",
      '"3", "4"',
      '"3"x',
      'x"3"',
      "W/",
      'w/"3"',
      'W/ "3"',
      "W/W/3",
      "-1",
      "+3",
      "3.0",
      "1e3",
      "0x10",
      "３",
      '"1234567890"',
      "3 4",
      '"a"',
    ];
    for (const header of refused) {
      const error = refusal(header);
      expect(error.code, JSON.stringify(header)).toBe("invalid_field");
      expect(error.field).toBe("If-Match");
      expect(error.message).toBe('If-Match must be a version as sent in the ETag, e.g. "3"');
    }
  });
});
