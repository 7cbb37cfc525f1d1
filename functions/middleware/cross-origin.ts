import type { Context } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import { settingsOf, type AppEnv } from "../env.ts";
import { EXPOSED_HEADERS } from "../http/headers.ts";

// Keys travel in the Authorization header, so any origin may call /v1 with one. No credentials
// are allowed across origins: the session cookie works from this origin's pages only.

/** The hosts of this machine: a page served there is a tool of the person's own (the MCP Inspector's web UI). */
const LOOPBACK_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * /mcp's CORS policy (docs/mcp.md "Origin and Host"): a browser page of the service's own origin,
 * or one on this machine (http or https, any port). The MCP transport requires a server to refuse
 * any other Origin with 403 (DNS rebinding); the endpoint does (functions/mcp/endpoint.ts), and
 * its preflight allows no other.
 */
export function mcpAllowsOrigin(origin: string, publicOrigin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.origin === publicOrigin || (/^https?:$/.test(url.protocol) && LOOPBACK_HOSTNAMES.has(url.hostname));
}

const options = {
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  // The last four: a browser's MCP client (docs/mcp.md) sends the protocol's version and its choice of tools.
  allowHeaders: [
    "Authorization",
    "Content-Type",
    "If-Match",
    "Idempotency-Key",
    "X-Request-Id",
    "Mcp-Protocol-Version",
    "Accept",
    "X-MCP-Tools",
    "X-MCP-Readonly",
  ],
  exposeHeaders: EXPOSED_HEADERS,
  maxAge: 86400,
};
const preflight = cors({ origin: "*", ...options });
const mcpPreflight = cors({
  origin: (origin, c) => (mcpAllowsOrigin(origin, settingsOf((c as Context<AppEnv>).env).publicOrigin) ? origin : null),
  ...options,
});
const EXPOSED = EXPOSED_HEADERS.join(",");

/**
 * CORS: hono's cors() answers the preflights; every other answer gets the two headers it would
 * add (origin "*" and the exposed headers), set on the answer once it is made, as secureHeaders()
 * sets its own. cors() sets them on `c.res` before the handler runs, which makes Hono build a
 * placeholder Response, copy its headers into the handler's, then wrap that Response again and
 * copy them once more: two Responses and every header copied twice, on every call.
 */
export const crossOrigin = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method === "OPTIONS") return (c.req.path === "/mcp" ? mcpPreflight : preflight)(c, next);
  await next();
  c.res.headers.set("Access-Control-Allow-Origin", "*");
  c.res.headers.set("Access-Control-Expose-Headers", EXPOSED);
});
