import type { AuditRequest } from "./audit.ts";

/**
 * Who is acting. Checked inside the very statement that does the work (one round trip):
 * - an API key, known by the SHA-256 of the key;
 * - a person signed in, known by their session's token (from the signed session cookie); the
 *   session's organisation is its active one, its scopes those of the person's role there;
 * - an OAuth application, known by the SHA-256 of its access token (docs/apps.md), and the
 *   resource (RFC 8707) the transport serves: a token bound to another resource is refused, and one
 *   bound to none only where `unboundAccepted` (/v1 takes it, /mcp does not);
 * - the system (the CLI, the seed), which names its organisation and holds every scope.
 */
export type Actor = KeyActor | { sessionToken: string } | AppActor | { orgId: string };

/** What a call through the MCP server (functions/mcp/) carries: the MCP request it is part of. */
interface ViaMcp {
  /**
   * Set on the MCP server's calls: the MCP request's address, user agent and id. The first call of
   * a UTC day by this key or installation records mcp.session_started (db/statements/engine/mcp-sessions.ts).
   */
  mcp?: AuditRequest | undefined;
}

export interface KeyActor extends ViaMcp {
  keyHash: string;
}

export interface AppActor extends ViaMcp {
  accessTokenHash: string;
  resource: string;
  unboundAccepted: boolean;
}

export const isKeyActor = (actor: Actor): actor is { keyHash: string } => "keyHash" in actor;
export const isSessionActor = (actor: Actor): actor is { sessionToken: string } => "sessionToken" in actor;
export const isAppActor = (actor: Actor): actor is AppActor => "accessTokenHash" in actor;
