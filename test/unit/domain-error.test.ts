import { describe, expect, it } from "vitest";
import { DomainError } from "../../domain/errors.ts";

// domain/errors.ts: a refusal is answered, never logged with a stack, so none is captured (a
// quarter of the app's CPU for a 404 in workerd, bench/results/README.md "CPU per call"). It stays an
// Error, and an unexpected error made after it still has its stack.

describe("DomainError", () => {
  it("is an Error with its name, code, message and details, and no stack frames", () => {
    const error = new DomainError("not_found", "task not found", { field: "id" });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "DomainError", code: "not_found", message: "task not found", field: "id" });
    expect(error.stack).toBe("DomainError: task not found");
  });

  it("leaves Error.stackTraceLimit as it found it, so other errors keep their stacks", () => {
    const before = Error.stackTraceLimit;
    new DomainError("invalid_field", "bad");
    expect(Error.stackTraceLimit).toBe(before);
    const other = new Error("unexpected");
    expect(other.stack?.split("\n").length).toBeGreaterThan(1);
  });
});
