import { DomainError } from "../../domain/errors.ts";
import type { McpTool } from "./tools.ts";

// Which tools a connection is handed (docs/mcp.md "Tool groups"): a model choosing among ninety
// tools chooses worse, and some clients pass only the first forty on. The client picks groups by
// the URL (?tools=tasks,projects) or a header (X-MCP-Tools), and read-only mode by ?readonly=1 or
// X-MCP-Readonly: 1. With neither, the compact default set below. A tool outside the selection
// is neither listed nor callable; a tool the caller's scopes do not allow is not listed either
// (a call of it answers the route's own 403).

/**
 * The compact default set: search, get, create, change and comment, on the seed's own work
 * (tasks and projects), with the people a task is assigned to. Each name is an operationId;
 * `selectionOf` throws when one is missing from the registry, so a renamed route fails the tests
 * instead of silently leaving the set.
 */
export const DEFAULT_TOOLS = [
  "listTasks",
  "getTask",
  "createTask",
  "updateTask",
  "listComments",
  "createComment",
  "listProjects",
  "getProject",
  "createProject",
  "updateProject",
  "listPersonnel",
] as const;

export interface Selection {
  /** Group names, "default" or "all", as asked. */
  groups: string[];
  readOnly: boolean;
}

const TRUE = new Set(["1", "true", "yes"]);
const FALSE = new Set(["0", "false", "no", ""]);

/** The selection a request asks for, by its URL or headers (the URL wins when both are sent). */
export function selectionOf(request: Request): Selection {
  const url = new URL(request.url);
  const tools = url.searchParams.get("tools") ?? request.headers.get("x-mcp-tools") ?? "default";
  const readonly = (url.searchParams.get("readonly") ?? request.headers.get("x-mcp-readonly") ?? "false").toLowerCase();
  if (!TRUE.has(readonly) && !FALSE.has(readonly))
    throw new DomainError("invalid_field", "readonly must be 1 or 0 (true or false)", { field: "readonly" });
  const groups = tools
    .split(",")
    .map((group) => group.trim().toLowerCase())
    .filter(Boolean);
  return { groups: groups.length ? groups : ["default"], readOnly: TRUE.has(readonly) };
}

/** The groups of a tool list, in registry order. */
export const groupsOf = (tools: McpTool[]) => [...new Set(tools.map((tool) => tool.group))];

/** The tools of `all` a selection takes; an unknown group is refused, naming the ones there are. */
export function selectedTools(all: McpTool[], selection: Selection): McpTool[] {
  const names = new Set(all.map((tool) => tool.name));
  const missing = DEFAULT_TOOLS.filter((name) => !names.has(name));
  if (missing.length) throw new Error(`the default MCP tools name no operation of the registry: ${missing.join(", ")}`);
  const known = groupsOf(all);
  const unknown = selection.groups.filter((group) => group !== "default" && group !== "all" && !known.includes(group));
  if (unknown.length)
    throw new DomainError("invalid_field", `no tool group ${unknown.join(", ")}; the groups are default, all, ${known.join(", ")}`, {
      field: "tools",
    });
  const everything = selection.groups.includes("all");
  const defaults = selection.groups.includes("default");
  return all.filter(
    (tool) =>
      (everything || selection.groups.includes(tool.group) || (defaults && (DEFAULT_TOOLS as readonly string[]).includes(tool.name))) &&
      (!selection.readOnly || tool.annotations.readOnlyHint),
  );
}
