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
export type Actor = { keyHash: string } | { sessionToken: string } | AppActor | { orgId: string };

export interface AppActor {
  accessTokenHash: string;
  resource: string;
  unboundAccepted: boolean;
}

export const isKeyActor = (actor: Actor): actor is { keyHash: string } => "keyHash" in actor;
export const isSessionActor = (actor: Actor): actor is { sessionToken: string } => "sessionToken" in actor;
export const isAppActor = (actor: Actor): actor is AppActor => "accessTokenHash" in actor;
