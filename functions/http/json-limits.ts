import { DomainError } from "../../domain/errors.ts";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "../../domain/limits.ts";

// What every JSON body must be before any code of ours walks it: JSON.parse itself takes any
// depth, but the code after it (zod, a batch's reference resolution, JSON.stringify) recurses, so
// a few KB of nested arrays would overflow its stack. And every string, field names included,
// must be well-formed UTF-16: JSON's \ud800 escape makes a lone surrogate, which is no text at
// all, and Neon's SQL-over-HTTP proxy refuses a request that carries one (serde_json), so it would
// otherwise surface as a false "database unavailable". URLs and headers cannot carry one:
// percent-decoding leaves an escape that is not UTF-8 as it was sent, and headers are bytes.

/** Where a value sits in the body: its parent's place and its own name (a field or an index). */
interface Place {
  parent: Place | null;
  key: string;
}

interface Container {
  value: object;
  depth: number;
  place: Place | null;
}

/** The API's name for a place: `operations.0.body.title`, as validation errors name fields. */
function fieldAt(place: Place | null): string {
  const keys: string[] = [];
  for (let at = place; at; at = at.parent) keys.push(at.key.toWellFormed());
  return keys.reverse().join(".") || "body";
}

const invalid = (place: Place | null, problem: string) => {
  const field = fieldAt(place);
  return new DomainError("invalid_field", `${field}: ${problem}`, { field });
};

const LONE_SURROGATE = "holds a lone UTF-16 surrogate (a \\ud800-\\udfff escape without its pair), which is not text";

/**
 * The first problem of a parsed JSON body, or null: an array or object nested more than
 * MAX_JSON_DEPTH deep, more than MAX_JSON_VALUES values in all, or a string or field name that is
 * not well-formed UTF-16. Each is 400 invalid_field naming where. Its own stack, not recursion:
 * no depth can overflow it.
 */
export function jsonBodyProblem(body: unknown): DomainError | null {
  if (typeof body === "string") return body.isWellFormed() ? null : invalid(null, LONE_SURROGATE);
  if (body === null || typeof body !== "object") return null;
  let values = 1;
  const stack: Container[] = [{ value: body, depth: 1, place: null }];
  for (let container = stack.pop(); container; container = stack.pop()) {
    const { depth, place } = container;
    const nested: Container[] = [];
    // One value of the container: a place is made only for what is nested or refused (most are neither).
    const visit = (value: unknown, key: string): DomainError | null => {
      if (++values > MAX_JSON_VALUES) return invalid(null, `the body holds more than ${MAX_JSON_VALUES} values`);
      if (typeof value === "string") return value.isWellFormed() ? null : invalid({ parent: place, key }, LONE_SURROGATE);
      if (value === null || typeof value !== "object") return null;
      if (depth === MAX_JSON_DEPTH) return invalid({ parent: place, key }, `arrays and objects nest at most ${MAX_JSON_DEPTH} deep`);
      nested.push({ value, depth: depth + 1, place: { parent: place, key } });
      return null;
    };
    if (Array.isArray(container.value)) {
      for (let i = 0; i < container.value.length; i++) {
        const problem = visit(container.value[i], String(i));
        if (problem) return problem;
      }
    } else {
      for (const [key, value] of Object.entries(container.value)) {
        if (!key.isWellFormed()) return invalid({ parent: place, key }, `the field name ${LONE_SURROGATE}`);
        const problem = visit(value, key);
        if (problem) return problem;
      }
    }
    // Reversed onto the stack, so nested values are looked at in the order they were sent.
    for (let i = nested.length - 1; i >= 0; i--) stack.push(nested[i]!);
  }
  return null;
}
