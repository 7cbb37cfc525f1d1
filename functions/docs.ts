import { Scalar } from "@scalar/hono-api-reference";

/**
 * Where the Worker's static assets (wrangler.toml [assets], the console/ folder) hold Scalar's
 * standalone bundle. `npm install` copies it there from @scalar/api-reference
 * (cli/copy-vendor-assets.ts), because the page must work offline and the default loads it from a CDN.
 */
export const SCALAR_BUNDLE_PATH = "/vendor/scalar/api-reference.js";

/**
 * GET /docs: the API reference, rendered in the browser by Scalar from GET /v1/openapi.json. Not
 * an API operation (it is HTML, outside /v1), so it is not in the route registry.
 * Everything Scalar would fetch from elsewhere is switched off: fonts, telemetry, the AI agent,
 * and the "Generate MCP" link to its hosted service.
 */
export const apiReference = Scalar({
  url: "/v1/openapi.json",
  pageTitle: "opsroom API reference",
  cdn: SCALAR_BUNDLE_PATH,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  persistAuth: false,
  operationTitleSource: "summary",
  defaultOpenFirstTag: false,
});
