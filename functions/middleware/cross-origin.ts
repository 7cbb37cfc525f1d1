import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env.ts";
import { EXPOSED_HEADERS } from "../http/headers.ts";

// Keys travel in the Authorization header, so any origin may call with one. No credentials are
// allowed across origins: the session cookie works from this origin's pages only.
const preflight = cors({
  origin: "*",
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
  if (c.req.method === "OPTIONS") return preflight(c, next);
  await next();
  c.res.headers.set("Access-Control-Allow-Origin", "*");
  c.res.headers.set("Access-Control-Expose-Headers", EXPOSED);
});
