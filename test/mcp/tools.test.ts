import { describe, expect, it } from "vitest";
import { ALL_SCOPES, type Scope } from "../../domain/scopes.ts";
import type { AnyRoute } from "../../functions/http/registry.ts";
import { DEFAULT_TOOLS } from "../../functions/mcp/selection.ts";
import { isToolRoute } from "../../functions/mcp/tools.ts";
import { loadRoutes } from "../../functions/routes/index.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { connectMcp, postMcp } from "./helpers.ts";

const routes = await loadRoutes();

// tools/list: one tool per operation of the registry a key can call, and nothing else; only those
// the caller's scopes allow; the groups and read-only mode the client chose; the compact default.

/**
 * The operations a key or an access token can call: not the settings area (a signed-in person's
 * only), not the public document, not the audit log's NDJSON export (a tool answers JSON).
 */
const callable = routes.filter((route) => isToolRoute(route));
const names = (list: AnyRoute[]) => list.map((route) => route.operationId).sort();

/**
 * The file tools (functions/mcp/file-tools.ts), each made from a file route and holding its scope:
 * a read of the bytes as content (from the get), an attach from a URL (from the upload, whose body
 * is bytes, so it is no tool of its own).
 */
const FILE_TOOLS: Record<string, string> = Object.fromEntries(
  ["Task", "Comment", "Risk", "Issue", "FinancialEntry"].flatMap((kind) => [
    [`read${kind}Attachment`, `get${kind}Attachment`],
    [`attach${kind}FromUrl`, `upload${kind}Attachment`],
  ]),
);
const routeOf = (operationId: string) => routes.find((route) => route.operationId === operationId)!;
/** The names of the tools `list`'s routes make, with the file tools whose routes `keep` holds. */
const toolNames = (list: AnyRoute[], keep: (route: AnyRoute) => boolean = () => true) =>
  [...names(list), ...Object.keys(FILE_TOOLS).filter((name) => keep(routeOf(FILE_TOOLS[name]!)))].sort();
const fields = (schema: unknown) => Object.keys(((schema as { shape?: object } | undefined)?.shape ?? {}) as object);

async function listed(token: string, options: Parameters<typeof connectMcp>[1] = {}) {
  const client = await connectMcp(token, options);
  return (await client.listTools()).tools;
}

describe("tools/list", () => {
  it("holds every operation of the registry in the full set, each derived from its route, and nothing else", async () => {
    const tenant = await createTenant({ scopes: ALL_SCOPES });
    const tools = await listed(tenant.key, { query: { tools: "all" } });
    expect(tools.map((t) => t.name).sort()).toEqual(toolNames(callable));
    // What is left out: a session's routes (the settings area, notifications: they answer keys 401),
    // the public OpenAPI document and the NDJSON export; the uploads (their file tools take their
    // place) and the keyless download; a multipart upload's five routes (docs/attachments.md "Large
    // files": an agent cannot send parts, attach<Record>FromUrl takes their place).
    const leftOut = routes.filter((r) => !callable.includes(r));
    expect(
      leftOut
        .filter((r) => r.auth !== "session")
        .map((r) => r.operationId)
        .sort(),
    ).toEqual(
      [
        "exportAuditLog",
        "getOpenApiDocument",
        "downloadAttachment",
        ...Object.values(FILE_TOOLS).filter((id) => id.startsWith("upload")),
        ...["Task", "Comment", "Risk", "Issue", "FinancialEntry"].flatMap((kind) => [
          `start${kind}AttachmentUpload`,
          `get${kind}AttachmentUpload`,
          `upload${kind}AttachmentPart`,
          `complete${kind}AttachmentUpload`,
          `abort${kind}AttachmentUpload`,
        ]),
      ].sort(),
    );
    for (const tool of tools) {
      if (FILE_TOOLS[tool.name]) {
        const route = routeOf(FILE_TOOLS[tool.name]!);
        expect(tool.description).toContain(`${route.method.toUpperCase()} ${route.path} (scope ${route.scope})`);
        expect(tool.inputSchema.required).toEqual(expect.arrayContaining(fields(route.params)));
        expect(tool.annotations?.readOnlyHint).toBe(route.method === "get");
        continue;
      }
      const route = callable.find((r) => r.operationId === tool.name)!;
      expect(tool.title).toBe(route.summary);
      expect(tool.description).toContain(`${route.method.toUpperCase()} ${route.path}`);
      for (const code of route.errors ?? []) expect(tool.description).toContain(code);
      const properties = Object.keys(tool.inputSchema.properties ?? {});
      const body = properties.includes("body") && !fields(route.body).includes("body") ? [] : fields(route.body);
      expect(properties).toEqual(expect.arrayContaining([...fields(route.params), ...fields(route.query), ...body]));
      expect(tool.inputSchema.required ?? []).toEqual(expect.arrayContaining(fields(route.params)));
      const reads = route.method === "get";
      expect(tool.annotations).toMatchObject({
        readOnlyHint: reads,
        destructiveHint: ["patch", "put", "delete"].includes(route.method),
        idempotentHint: ["get", "put", "delete"].includes(route.method),
      });
      expect(properties.includes("idempotencyKey")).toBe(route.method === "post" && (route.errors ?? []).includes("idempotency_mismatch"));
    }
  });

  it("lists only the tools the caller's scopes allow", async () => {
    const tenant = await createTenant();
    for (const scopes of [["tasks.read"], ["projects.manage", "organisation.read"], []] as Scope[][]) {
      const key = await tenant.keyWith(scopes);
      const tools = await listed(key.key, { query: { tools: "all" } });
      const held = new Set<string>(key.scopes);
      const allowed = (r: AnyRoute) => r.scope === null || held.has(r.scope);
      expect(tools.map((t) => t.name).sort()).toEqual(toolNames(callable.filter(allowed), allowed));
    }
  });

  it("lists reads only in read-only mode, by the URL or by the header, and refuses a call of a write", async () => {
    const tenant = await createTenant({ scopes: ALL_SCOPES });
    const reads = toolNames(
      callable.filter((r) => r.method === "get"),
      (r) => r.method === "get",
    );
    expect((await listed(tenant.key, { query: { tools: "all", readonly: "1" } })).map((t) => t.name).sort()).toEqual(reads);
    const byHeader = await listed(tenant.key, { headers: { "x-mcp-tools": "all", "x-mcp-readonly": "true" } });
    expect(byHeader.map((t) => t.name).sort()).toEqual(reads);
    expect(byHeader.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const client = await connectMcp(tenant.key, { query: { readonly: "1" } });
    await expect(client.callTool({ name: "createTask", arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it("lists the groups the client chose, by the URL or by the header", async () => {
    const tenant = await createTenant({ scopes: ALL_SCOPES });
    const tagged = (...tags: string[]) => names(callable.filter((r) => tags.includes(r.tag)));
    expect((await listed(tenant.key, { query: { tools: "tasks,projects" } })).map((t) => t.name).sort()).toEqual(
      tagged("Tasks", "Projects"),
    );
    expect((await listed(tenant.key, { headers: { "x-mcp-tools": "financial-entries" } })).map((t) => t.name).sort()).toEqual(
      tagged("Financial entries"),
    );
    const counts = Object.fromEntries([...new Set(callable.map((r) => r.tag))].map((tag) => [tag, tagged(tag).length]));
    console.log(`tools per group: ${JSON.stringify(counts)}; all ${callable.length}; default ${DEFAULT_TOOLS.length}`);
  });

  it("hands the compact default set (search, get, create, change, comment) when no group is chosen", async () => {
    const tenant = await createTenant({ scopes: ALL_SCOPES });
    const tools = await listed(tenant.key);
    expect(tools.map((t) => t.name).sort()).toEqual([...DEFAULT_TOOLS].sort());
    const client = await connectMcp(tenant.key);
    await expect(client.callTool({ name: "deleteTask", arguments: { id: "0190a000-0000-7000-8000-000000000000" } })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("refuses an unknown group with a JSON-RPC error naming the groups there are", async () => {
    const tenant = await createTenant();
    const listing = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const answer = await postMcp(listing, tenant.key, { "x-mcp-tools": "tasks,gardening", "mcp-protocol-version": "2025-06-18" });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: -32602, data: { code: "invalid_field", field: "tools" } });
    expect(answer.json.error.message).toContain("gardening");
  });
});
