// Every entry point of the Worker that is not a /v1 route of the registry (functions/routes/), as
// data: functions/app.ts mounts each on its part, each part's router (OAuth, sign-in, the room's
// endpoints) declares its handlers at these paths, and docs/routes.md's "Protocol endpoints" table
// is generated from this list (npm run generate). test/unit/entry-points.test.ts holds each part's
// router to exactly its rows here, so a path served and not on the map fails the tests.
// Paths are written as the OpenAPI document writes them ({param}); honoPath() is the router's form.

/** Which part of the Worker answers: each but mcp and docs is loaded when a request first reaches it. */
export type EntryPart = "mcp" | "oauth" | "auth" | "internal" | "mail" | "docs";

export type EntryMethod = "GET" | "POST" | "DELETE";

export interface EntryPoint {
  readonly methods: readonly EntryMethod[];
  readonly path: string;
  readonly part: EntryPart;
  /** Who calls it and how they are known. */
  readonly caller: string;
  readonly purpose: string;
}

export const ENTRY_POINTS = {
  mcp: {
    methods: ["GET", "POST", "DELETE"],
    path: "/mcp",
    part: "mcp",
    caller: "MCP clients: an API key, or an OAuth access token whose audience is `/mcp`",
    purpose: "the MCP server (Streamable HTTP, JSON answers): every /v1 operation as a tool; GET and DELETE answer 405 (docs/mcp.md)",
  },
  authorizationServerMetadata: {
    methods: ["GET"],
    path: "/.well-known/oauth-authorization-server",
    part: "oauth",
    caller: "anyone",
    purpose: "the authorization server's metadata (RFC 8414)",
  },
  protectedResourceMetadata: {
    methods: ["GET"],
    path: "/.well-known/oauth-protected-resource",
    part: "oauth",
    caller: "anyone",
    purpose: "the API's protected resource metadata (RFC 9728)",
  },
  mcpResourceMetadata: {
    methods: ["GET"],
    path: "/.well-known/oauth-protected-resource/mcp",
    part: "oauth",
    caller: "anyone",
    purpose: "the MCP server's protected resource metadata (RFC 9728), named by /mcp's 401",
  },
  authorize: {
    methods: ["GET"],
    path: "/oauth/authorize",
    part: "oauth",
    caller: "a person's browser, sent by an application",
    purpose: "the authorization endpoint: checks the request and sends the person to the console's consent page",
  },
  consentView: {
    methods: ["GET"],
    path: "/oauth/consent",
    part: "oauth",
    caller: "the console's consent page (session cookie)",
    purpose: "what the application asks for, to show the person",
  },
  consentDecision: {
    methods: ["POST"],
    path: "/oauth/consent",
    part: "oauth",
    caller: "the console's consent page (session cookie, same origin)",
    purpose: "the person's decision: a redirect to the application with a code or an error",
  },
  token: {
    methods: ["POST"],
    path: "/oauth/token",
    part: "oauth",
    caller: "applications (client authentication, or PKCE for public clients)",
    purpose: "the token endpoint: authorization_code, refresh_token and client_credentials grants",
  },
  revoke: {
    methods: ["POST"],
    path: "/oauth/revoke",
    part: "oauth",
    caller: "applications",
    purpose: "token revocation (RFC 7009)",
  },
  register: {
    methods: ["POST"],
    path: "/oauth/register",
    part: "oauth",
    caller: "anyone (MCP clients registering themselves)",
    purpose: "dynamic client registration (RFC 7591), public clients only",
  },
  invitation: {
    methods: ["GET"],
    path: "/auth/invitations/{token}",
    part: "auth",
    caller: "the console's invitation page",
    purpose: "what an invitation is to, before the person signs in or up to accept it",
  },
  acceptInvitation: {
    methods: ["POST"],
    path: "/auth/invitations/accept",
    part: "auth",
    caller: "a signed-in person (session cookie, same origin)",
    purpose: "joins the organisation an invitation is to",
  },
  signIn: {
    methods: ["POST"],
    path: "/auth/sign-in/email",
    part: "auth",
    caller: "the console's sign-in page",
    purpose: "signs a person in with email and password (better-auth), rate limited per address and client",
  },
  signUp: {
    methods: ["POST"],
    path: "/auth/sign-up/email",
    part: "auth",
    caller: "the console's sign-up page",
    purpose: "makes an account and its own organisation (better-auth)",
  },
  requestPasswordReset: {
    methods: ["POST"],
    path: "/auth/request-password-reset",
    part: "auth",
    caller: "the console's sign-in page",
    purpose: "mails a single-use reset link; the same answer whether or not the address has an account",
  },
  resetPassword: {
    methods: ["POST"],
    path: "/auth/reset-password",
    part: "auth",
    caller: "the console's reset page, with the mailed token",
    purpose: "sets a new password and ends every session of the person",
  },
  sendVerificationEmail: {
    methods: ["POST"],
    path: "/auth/send-verification-email",
    part: "auth",
    caller: "the console's settings page",
    purpose: "mails a link that verifies the person's address",
  },
  verifyEmail: {
    methods: ["GET"],
    path: "/auth/verify-email",
    part: "auth",
    caller: "a mailed link",
    purpose: "verifies an address, or confirms an address change at the new address",
  },
  changeEmail: {
    methods: ["POST"],
    path: "/auth/change-email",
    part: "auth",
    caller: "a signed-in person (session cookie)",
    purpose: "mails a confirmation link to the new address",
  },
  signOut: {
    methods: ["POST"],
    path: "/auth/sign-out",
    part: "auth",
    caller: "a signed-in person (session cookie)",
    purpose: "ends the session",
  },
  getSession: {
    methods: ["GET"],
    path: "/auth/get-session",
    part: "auth",
    caller: "the console (session cookie)",
    purpose: "who is signed in",
  },
  roomStart: {
    methods: ["GET"],
    path: "/internal/rooms/{orgId}/start",
    part: "internal",
    caller: "the organisation's realtime room (REALTIME_SECRET)",
    purpose: "where a room without memory starts: the last changeVersion published",
  },
  roomEvents: {
    methods: ["GET"],
    path: "/internal/rooms/{orgId}/events",
    part: "internal",
    caller: "the realtime room (REALTIME_SECRET)",
    purpose: "the events a room missed after a gap, in order",
  },
  roomWebhooks: {
    methods: ["GET"],
    path: "/internal/rooms/{orgId}/webhooks",
    part: "internal",
    caller: "the realtime room (REALTIME_SECRET)",
    purpose: "the webhooks to deliver to, secrets included",
  },
  roomDeliveries: {
    methods: ["POST"],
    path: "/internal/rooms/{orgId}/deliveries",
    part: "internal",
    caller: "the realtime room (REALTIME_SECRET)",
    purpose: "records webhook delivery attempts",
  },
  roomDisableWebhook: {
    methods: ["POST"],
    path: "/internal/rooms/{orgId}/webhooks/{webhookId}/disable",
    part: "internal",
    caller: "the realtime room (REALTIME_SECRET)",
    purpose: "disables a webhook that failed for days",
  },
  roomSockets: {
    methods: ["POST"],
    path: "/internal/rooms/{orgId}/sockets",
    part: "internal",
    caller: "the realtime room (REALTIME_SECRET)",
    purpose: "who a socket's credential belongs to, and what it may see",
  },
  unsubscribePage: {
    methods: ["GET"],
    path: "/unsubscribe",
    part: "mail",
    caller: "a person following a notification mail's unsubscribe link (its signed token)",
    purpose: "a page asking to confirm turning that kind of mail off; changes nothing (docs/notifications.md)",
  },
  unsubscribe: {
    methods: ["POST"],
    path: "/unsubscribe",
    part: "mail",
    caller: "the confirm page, or a mail client's RFC 8058 one-click POST (the signed token)",
    purpose: "turns that kind of notification mail off",
  },
  docs: {
    methods: ["GET"],
    path: "/docs",
    part: "docs",
    caller: "anyone",
    purpose: "the API reference page (Scalar, from the OpenAPI document)",
  },
} as const satisfies Record<string, EntryPoint>;

export type EntryPointName = keyof typeof ENTRY_POINTS;

/** The path as Hono's routers write it: `{orgId}` becomes `:orgId` (in its type too, so handlers' params are typed). */
export type HonoPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}` ? `${Head}:${Name}${HonoPath<Tail>}` : P;
export const honoPath = <P extends string>(path: P) => path.replace(/\{(\w+)\}/g, ":$1") as HonoPath<P>;

/** The path of an entry point, in the router's form. */
export const pathOf = <N extends EntryPointName>(name: N) => honoPath(ENTRY_POINTS[name].path as (typeof ENTRY_POINTS)[N]["path"]);
