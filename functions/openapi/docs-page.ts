import { Scalar } from "@scalar/hono-api-reference";
import type { Context } from "hono";
import type { AppEnv } from "../env.ts";

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
const scalarPage = Scalar<AppEnv>({
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

/** The base64 SHA-256 of a text, as a Content-Security-Policy source names an inline script. */
async function scriptHash(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return `'sha256-${btoa(String.fromCharCode(...digest))}'`;
}

let policy: Promise<string> | undefined;

/**
 * The page with a Content-Security-Policy as strict as the console's: scripts only from this
 * origin plus the page's own inline start-up script (allowed by its hash, computed once per
 * isolate: the page is the same for every request), connections only to this origin.
 */
export async function apiReference(c: Context<AppEnv>) {
  const page = await scalarPage(c, async () => {});
  const html = await page!.text();
  policy ??= Promise.all([...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => scriptHash(m[1]!))).then(
    (hashes) =>
      [
        "default-src 'none'",
        `script-src 'self' ${hashes.join(" ")}`,
        // Scalar sets styles from script as it renders.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ].join("; "),
  );
  c.header("Content-Security-Policy", await policy);
  return c.html(html);
}
