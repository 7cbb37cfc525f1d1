import { z } from "@hono/zod-openapi";
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { checksIfMatch, REQUEST_HEADERS, replaysIdempotencyKey } from "../http/headers.ts";
import type { AnyRoute } from "../http/registry.ts";
import type { McpCaller } from "./dispatch.ts";
import { fileToolsOf } from "./file-tools.ts";
import { jsonSchemaOf } from "./json-schema.ts";

// The MCP server's tools, derived from the route registry and from nothing else: one tool per
// operation a key or an access token can call (the settings area answers only a signed-in person,
// and the public OpenAPI document is no operation of the organisation). Its name is the route's
// operationId, its description the route's summary, description, path, scope and particular
// refusals, its input schema the JSON Schema of the very zod schemas that validate the route's path
// parameters, query and body, and its annotations follow from the HTTP method. A new route is a
// new tool with no other change (test/mcp/registry.test.ts holds the two lists equal).

export interface McpTool {
  name: string;
  /** The tool as tools/list sends it. */
  definition: Tool;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** The tool group the client may choose it by (?tools=): the route's tag, in kebab case. */
  group: string;
  route: AnyRoute;
  /** Where each argument goes: the path, the query, the body, or a header. */
  placement: ArgumentPlacement;
  /** A file tool's own work (file-tools.ts), which calls its route itself; other tools are their route's call. */
  run?: (context: ToolContext, args: Record<string, unknown>) => Promise<CallToolResult>;
}

/** What a file tool's run is given: the caller, and its scopes (GET /v1). */
export interface ToolContext {
  caller: McpCaller;
  heldScopes(): Promise<Set<string>>;
}

export interface ArgumentPlacement {
  path: string[];
  query: string[];
  /** The body's own fields, spread among the arguments; or "nested": the body is the argument `body`. */
  body: string[] | "nested" | null;
  /** idempotencyKey (Idempotency-Key) and ifMatch (If-Match), where the route reads them. */
  headers: { idempotencyKey: boolean; ifMatch: boolean };
}

/**
 * Whether an agent can call the route with a key or an access token, and read its answer as JSON
 * (the audit log's NDJSON export is not a tool: listAuditLog pages the same entries), and send
 * its body as JSON (an upload's body is the file's bytes: the tools attach<Record>FromUrl take its
 * place, file-tools.ts), unless the route says it is no tool (`tool: false`).
 */
export const isToolRoute = (route: AnyRoute) =>
  route.scope !== "public" && route.auth !== "session" && !route.response.mediaType && !route.fileBody && route.tool !== false;

/** "Financial entries" -> "financial-entries". */
export const groupOf = (route: AnyRoute) => route.tag.toLowerCase().replace(/\s+/g, "-");

/** The annotations of a method: GET reads; PUT and DELETE are idempotent (as HTTP says); PATCH, PUT and DELETE change what exists. */
function annotationsOf(route: AnyRoute): Omit<McpTool["annotations"], "title"> {
  const readOnly = route.method === "get";
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && route.method !== "post",
    idempotentHint: readOnly || route.method === "put" || route.method === "delete",
    openWorldHint: false,
  };
}

function descriptionOf(route: AnyRoute, placement: ArgumentPlacement): string {
  const lines = [`${route.summary}.`];
  if (route.description) lines.push(route.description);
  const scope = route.scope === null ? "any valid key" : `scope ${route.scope}`;
  lines.push(`HTTP: ${route.method.toUpperCase()} ${route.path} (${scope}).`);
  const particular = [...new Set(route.errors ?? [])];
  if (particular.length) lines.push(`Refusals particular to it: ${particular.join(", ")}.`);
  if (placement.headers.idempotencyKey)
    lines.push("Pass idempotencyKey so that a retry answers the first answer and creates nothing more.");
  if (placement.headers.ifMatch)
    lines.push("Pass ifMatch (the record's version) to refuse the change if the record changed since you read it.");
  if (placement.body === "nested") lines.push("The request body is the argument `body`.");
  return lines.join("\n");
}

/** The input schema: path parameters, query and body fields side by side (the body nested when its fields would collide), and the two headers. */
function inputOf(route: AnyRoute): { inputSchema: Tool["inputSchema"]; placement: ArgumentPlacement } {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const take = (schema: z.ZodType | undefined): string[] => {
    if (!schema) return [];
    const json = jsonSchemaOf(schema);
    Object.assign(properties, json.properties);
    required.push(...(json.required ?? []));
    return Object.keys(json.properties ?? {});
  };
  const path = take(route.params);
  const query = take(route.query);
  let body: ArgumentPlacement["body"] = null;
  if (route.body) {
    const fields = route.body instanceof z.ZodObject ? Object.keys(route.body.shape as object) : null;
    const collides = !fields || fields.some((field) => field in properties || field === "idempotencyKey" || field === "ifMatch");
    if (collides) {
      properties.body = jsonSchemaOf(route.body);
      required.push("body");
      body = "nested";
    } else body = take(route.body);
  }
  const headers = { idempotencyKey: replaysIdempotencyKey(route), ifMatch: checksIfMatch(route) };
  if (headers.idempotencyKey) {
    const { description, schema } = REQUEST_HEADERS.idempotencyKey;
    properties.idempotencyKey = { type: "string", maxLength: schema.maxLength, pattern: schema.pattern, description };
  }
  if (headers.ifMatch) {
    properties.ifMatch = {
      anyOf: [
        { type: "string", maxLength: REQUEST_HEADERS.ifMatch.schema.maxLength },
        { type: "integer", minimum: 0 },
      ],
      description: REQUEST_HEADERS.ifMatch.description,
    };
  }
  const inputSchema = { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false };
  return { inputSchema: inputSchema as Tool["inputSchema"], placement: { path, query, body, headers } };
}

const toolLists = new WeakMap<AnyRoute[], McpTool[]>();

/** Every tool of a registry, and the file tools made from its file routes; built once per isolate (the JSON Schemas cost CPU to make). */
export function toolsOf(routes: AnyRoute[]): McpTool[] {
  let tools = toolLists.get(routes);
  if (!tools) {
    tools = routes.filter(isToolRoute).map((route) => {
      const { inputSchema, placement } = inputOf(route);
      const annotations = { title: route.summary, ...annotationsOf(route) };
      const definition = {
        name: route.operationId,
        title: route.summary,
        description: descriptionOf(route, placement),
        inputSchema,
        annotations,
      };
      return {
        name: route.operationId,
        definition,
        annotations,
        group: groupOf(route),
        route,
        placement,
      };
    });
    tools.push(...fileToolsOf(routes));
    toolLists.set(routes, tools);
  }
  return tools;
}
