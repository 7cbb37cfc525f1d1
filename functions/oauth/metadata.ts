import { GRANT_TYPES } from "../../domain/oauth.ts";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { ENTRY_POINTS } from "../entry-points.ts";

// Discovery (docs/apps.md): the authorization server's metadata (RFC 8414) and the protected
// resources' (RFC 9728). The issuer is the service's origin; the API at the origin and the MCP
// server at <origin>/mcp are protected resources of it. The MCP server's route serves
// protectedResourceMetadata(origin, `${origin}/mcp`) at /.well-known/oauth-protected-resource/mcp.

export const AUTHORIZATION_SERVER_PATH = ENTRY_POINTS.authorizationServerMetadata.path;
export const PROTECTED_RESOURCE_PATH = ENTRY_POINTS.protectedResourceMetadata.path;
export const MCP_RESOURCE_METADATA_PATH = ENTRY_POINTS.mcpResourceMetadata.path;

/** The authorization server's endpoints, under the issuer (the OpenAPI document's oauth2 scheme names them too). */
export const OAUTH_PATHS = {
  authorize: ENTRY_POINTS.authorize.path,
  token: ENTRY_POINTS.token.path,
  revoke: ENTRY_POINTS.revoke.path,
  register: ENTRY_POINTS.register.path,
} as const;

/** RFC 8414 §2. */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
    revocation_endpoint: `${issuer}${OAUTH_PATHS.revoke}`,
    registration_endpoint: `${issuer}${OAUTH_PATHS.register}`,
    scopes_supported: ALL_SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: GRANT_TYPES,
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  };
}

/** RFC 9728 §2, for `resource` (the origin: the API; `<origin>/mcp`: the MCP server). */
export function protectedResourceMetadata(issuer: string, resource: string = issuer) {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: ALL_SCOPES,
    bearer_methods_supported: ["header"],
    resource_documentation: `${issuer}/docs`,
  };
}
