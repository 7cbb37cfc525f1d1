import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderRoutesTable, ROUTES_TABLE } from "../functions/openapi/routes-table.ts";
import { loadRoutes } from "../functions/routes/index.ts";
import { renderRouteManifest, ROUTE_MANIFEST_FILE } from "../functions/routes/render-manifest.ts";
import { renderAsyncApiJson } from "./asyncapi.ts";
import { renderConsoleDomain } from "./console-domain.ts";
import { renderConsoleForms } from "./console-forms.ts";
import { MCP_GUIDE, renderMcpGuide } from "./mcp-tool-groups.ts";
import { renderClientSchema, renderOpenApiJson } from "./render-schema.ts";

// Every file the project generates rather than writes, with how each is rendered: `npm run generate`
// writes them all (client/generate.ts), `npm run generate -- --check` (a CI step) and
// test/unit/generated.test.ts fail while one is stale. Each is derived from one declaration: the
// route registry (functions/routes/), the kernel (domain/), or the entry points' map.

export interface Generated {
  /** From the repository's root. */
  file: string;
  /** Today's text of the file; `current` is its committed text (a guide keeps its hand-written parts). */
  render: (current: string) => Promise<string> | string;
}

export const fromRoot = (file: string) => fileURLToPath(new URL(`../${file}`, import.meta.url));
export const committed = (file: string) => {
  try {
    return readFileSync(fromRoot(file), "utf8");
  } catch {
    return "";
  }
};

/** In the order they are written: the console's forms read the OpenAPI document. */
export const GENERATED: Generated[] = [
  { file: ROUTES_TABLE, render: async () => renderRoutesTable(await loadRoutes()) },
  { file: ROUTE_MANIFEST_FILE, render: () => renderRouteManifest() },
  { file: "client/openapi.json", render: () => renderOpenApiJson() },
  { file: "client/asyncapi.json", render: () => renderAsyncApiJson() },
  { file: "client/schema.d.ts", render: () => renderClientSchema() },
  { file: "console/js/lib/forms.generated.js", render: () => renderConsoleForms(renderOpenApiJson()) },
  { file: "console/js/lib/domain.generated.js", render: () => renderConsoleDomain() },
  { file: MCP_GUIDE, render: async (current) => renderMcpGuide(current, await loadRoutes()) },
];
