import type { Context } from "hono";
import { SCOPES } from "../../domain/scopes.ts";
import type { AppEnv } from "../env.ts";

// GET /.well-known/oauth-protected-resource/mcp (RFC 9728): what the 401 of /mcp points a client
// at, so it finds the authorization server and the scopes on its own.
export const mcpResourceMetadata = (c: Context<AppEnv>) => {
  const origin = new URL(c.req.url).origin;
  return c.json({
    resource: `${origin}/mcp`,
    authorization_servers: [origin],
    scopes_supported: Object.keys(SCOPES),
    bearer_methods_supported: ["header"],
    resource_name: "opsroom MCP server",
  });
};
