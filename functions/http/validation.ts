import type { z } from "@hono/zod-openapi";
import { DomainError, type ErrorCode } from "../../domain/errors.ts";

interface Problem {
  code: ErrorCode;
  field: string;
  message: string;
}

const PRIORITY: Partial<Record<ErrorCode, number>> = { missing_field: 0, unknown_field: 1, invalid_field: 2 };

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function problemsOf(issue: z.core.$ZodIssue, input: unknown, target: string): Problem[] {
  // A query parameter or path segment is named as sent (status), not by its parsed parts (status.0).
  const path = (target === "json" ? issue.path : issue.path.slice(0, 1)).map(String);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => {
      const field = [...path, key].join(".");
      return { code: "unknown_field" as const, field, message: `${field} is not a field this endpoint accepts` };
    });
  }
  const field = path.join(".") || "body";
  // zod reports a missing string as invalid_type but a missing enum (financial entry kind) as invalid_value.
  if ((issue.code === "invalid_type" || issue.code === "invalid_value") && valueAt(input, path) === undefined) {
    return [{ code: "missing_field", field, message: `${field} is required` }];
  }
  return [{ code: "invalid_field", field, message: `${field}: ${issue.message}` }];
}

/**
 * A zod failure as the API's answer: the most telling problem first (a missing field before an
 * unknown one before an invalid one), every problem listed in `issues`. The raw zod error is
 * never sent.
 */
export function validationError(error: z.ZodError, input: unknown, target = "json"): DomainError {
  const problems = error.issues
    .flatMap((issue) => problemsOf(issue, input, target))
    .sort((a, b) => (PRIORITY[a.code] ?? 9) - (PRIORITY[b.code] ?? 9));
  const first = problems[0] ?? { code: "invalid_field" as const, field: "body", message: "the request is invalid" };
  return new DomainError(first.code, first.message, { field: first.field, issues: problems });
}
