import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, Server, type CallToolResult } from "@modelcontextprotocol/server";
import { DomainError } from "../../domain/errors.ts";
import type { AnyRoute } from "../http/registry.ts";
import { callRoute, McpUnauthorized, refusalAnswer, routeCallOf, toolResult, type McpCaller, type RouteAnswer } from "./dispatch.ts";
import type { McpTool } from "./tools.ts";

// What one MCP request can do, for one caller and one selection of tools: list the tools its
// scopes allow, call one, list and read the two resources. Each is one route of the registry run
// through the app (dispatch.ts), so each costs what its HTTP call costs: listing the tools is
// GET /v1 (the caller's scopes, one statement), a call is its route's.

const INSTRUCTIONS = [
  "opsroom: the operations of one organisation (projects, milestones, tasks, people, risks, issues, financial entries).",
  "Every tool is one HTTP operation of the API under /v1; its result is the API's envelope ({ success, data, changeVersion, ... }) and a refusal is a tool error carrying the API's error code and field.",
  "Pass idempotencyKey on creates so that a retry creates once, and ifMatch (the record's version) on changes to refuse a stale write.",
  "Tool groups: ?tools=tasks,projects (or the X-MCP-Tools header), ?tools=all for every tool; ?readonly=1 lists reads only.",
].join("\n");

/** The resources: the organisation's self-description and its recent events. */
const RESOURCES = [
  {
    uri: "opsroom://organisation",
    name: "organisation",
    title: "This organisation, as your credentials see it",
    description: "GET /v1: the organisation, the application, your scopes, the changeVersion, the realtime room and every operation.",
    mimeType: "application/json",
  },
  {
    uri: "opsroom://events/recent",
    name: "recent-events",
    title: "The organisation's recent events",
    description: "GET /v1/events: the last 50 changes your scopes can see, each with its actor, in changeVersion order.",
    mimeType: "application/json",
  },
] as const;

/** How many events the recent-events resource holds. */
const RECENT_EVENTS = 50;

export class McpSession {
  /** Set when a route refused the credentials: the endpoint then answers the MCP request 401 (endpoint.ts). */
  refused: McpUnauthorized | undefined;

  constructor(
    private readonly caller: McpCaller,
    private readonly routes: AnyRoute[],
    /** The tools the connection's selection takes (selection.ts), before the caller's scopes. */
    private readonly tools: McpTool[],
  ) {}

  private route(operationId: string): AnyRoute {
    return this.routes.find((route) => route.operationId === operationId)!;
  }

  /** GET /v1: who the caller is. A refusal other than 401 (which answers the MCP request 401) is a JSON-RPC error carrying the API's. */
  async describe(): Promise<RouteAnswer> {
    return this.succeeded(await callRoute(this.caller, this.route("describeKey"), { path: {}, query: {} }));
  }

  private succeeded(answer: RouteAnswer): RouteAnswer {
    if (answer.status < 400) return answer;
    const error = answer.body.error as { code?: string } | undefined;
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, String(answer.body.message ?? error?.code), {
      status: answer.status,
      ...answer.body,
    });
  }

  /** The caller's scopes, the implied .read ones among them (GET /v1). */
  private async heldScopes(): Promise<Set<string>> {
    const self = (await this.describe()).body;
    return new Set((self.scopes as Array<{ scope: string }>).map((s) => s.scope));
  }

  /** The selected tools the caller's scopes allow. */
  async listTools(): Promise<McpTool[]> {
    const scopes = await this.heldScopes();
    return this.tools.filter((tool) => tool.route.scope === null || scopes.has(tool.route.scope));
  }

  /** Runs a tool: its route's answer as the result, a refusal as a tool error; a tool outside the selection is an unknown tool. */
  async callTool(name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const tool = this.tools.find((t) => t.name === name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    try {
      if (tool.run) return await tool.run({ caller: this.caller, heldScopes: () => this.heldScopes() }, args ?? {});
      return toolResult(await callRoute(this.caller, tool.route, routeCallOf(tool, args)));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return toolResult(refusalAnswer(error));
    }
  }

  /** A resource's text is its route's envelope as the route encoded it, not parsed and encoded again. */
  async readResource(uri: string) {
    let answer: RouteAnswer;
    if (uri === "opsroom://organisation") answer = await this.describe();
    else if (uri === "opsroom://events/recent") {
      const { changeVersion } = (await this.describe()).body as { changeVersion: number };
      const query = { after: Math.max(0, changeVersion - RECENT_EVENTS), limit: RECENT_EVENTS };
      answer = this.succeeded(await callRoute(this.caller, this.route("listEvents"), { path: {}, query }));
    } else throw new ResourceNotFoundError(uri);
    return { contents: [{ uri, mimeType: "application/json", text: answer.text }] };
  }

  /** Notes a refusal of the credentials, which the SDK would otherwise turn into a JSON-RPC error. */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof McpUnauthorized) this.refused = error;
      throw error;
    }
  }

  /** A low-level MCP server for this request (a fresh one per request: the endpoint is stateless). */
  server(): Server {
    const server = new Server(
      { name: "opsroom", version: "v1" },
      { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler("tools/list", async () => ({
      tools: (await this.guarded(() => this.listTools())).map((tool) => tool.definition),
    }));
    server.setRequestHandler("tools/call", (request) => this.guarded(() => this.callTool(request.params.name, request.params.arguments)));
    server.setRequestHandler("resources/list", () => ({ resources: [...RESOURCES] }));
    server.setRequestHandler("resources/read", (request) => this.guarded(() => this.readResource(request.params.uri)));
    return server;
  }
}
