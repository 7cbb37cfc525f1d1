import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { testClientAddress } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { taskBody } from "../helpers/resources.ts";
import { mcpUrl } from "./helpers.ts";

// A client nobody here wrote: the MCP Inspector's CLI (@modelcontextprotocol/inspector), as
// docs/mcp.md tells a person to run it, lists and calls the tools with a key in a header.

const INSPECTOR = fileURLToPath(new URL("../../node_modules/.bin/mcp-inspector", import.meta.url));
const catalog = mkdtempSync(join(tmpdir(), "opsroom-inspector-"));
afterAll(() => rmSync(catalog, { recursive: true, force: true }));

async function inspector(key: string, query: Record<string, string>, ...args: string[]) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      INSPECTOR,
      "--cli",
      mcpUrl(query).href,
      "--header",
      `Authorization: Bearer ${key}`,
      "--header",
      `CF-Connecting-IP: ${testClientAddress()}`,
      ...args,
    ],
    { env: { ...process.env, MCP_CATALOG_PATH: join(catalog, "mcp.json") }, timeout: 60_000 },
  );
  return stdout;
}

describe("the MCP Inspector's CLI", () => {
  it("lists the tools and calls one", { timeout: 120_000 }, async () => {
    const tenant = await createTenant();
    const listed = await inspector(tenant.key, { tools: "tasks" }, "--method", "tools/list");
    console.log(`inspector --cli --method tools/list printed:\n${listed.slice(0, 1200)}`);
    const tools = JSON.parse(listed).tools as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["listTasks", "createTask", "updateTask", "deleteTask"]));
    const body = await taskBody(tenant);
    const toolArgs = Object.entries(body).map(([name, value]) => `${name}=${String(value)}`);
    const called = await inspector(tenant.key, {}, "--method", "tools/call", "--tool-name", "createTask", "--tool-arg", ...toolArgs);
    console.log(`inspector --cli --method tools/call --tool-name createTask printed:\n${called.slice(0, 1200)}`);
    const result = JSON.parse(called);
    expect(result.isError).toBe(false);
    expect(result.structuredContent.data).toMatchObject({ title: body.title, status: "todo" });
  });
});
