import { EVENT_SCOPES } from "../../../domain/events.ts";
import { UsageError } from "../errors.ts";

// `--events task.*,project.created`: the same patterns a webhook takes (POST /v1/webhooks events).

const RESOURCES = Object.keys(EVENT_SCOPES);

/** Parses the comma list; an empty result means every event. Throws UsageError naming a bad pattern. */
export function parseEventPatterns(list: string | undefined): string[] {
  if (list === undefined) return [];
  const patterns = list.split(",").map((p) => p.trim()).filter(Boolean);
  for (const pattern of patterns) {
    const [resource, action, ...rest] = pattern.split(".");
    const valid = pattern === "*" || (rest.length === 0 && RESOURCES.includes(resource ?? "") && /^(\*|[a-z]+)$/.test(action ?? ""));
    if (!valid) throw new UsageError(`--events: "${pattern}" is not "*", "<resource>.*" or "<resource>.<action>" (resources: ${RESOURCES.join(", ")})`);
  }
  return patterns;
}

export function matchesEvent(patterns: string[], type: string): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((pattern) => pattern === "*" || pattern === type || (pattern.endsWith(".*") && type.startsWith(pattern.slice(0, -1))));
}
