import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { DEFAULT_RATE_LIMIT } from "../../domain/limits.ts";
import { checkOneOf, id } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { users } from "./people.ts";

// OAuth 2.1 applications (docs/apps.md): an application registered by an organisation (or
// dynamically, by nobody), installed in organisations by consent, and the grants a person's
// consent or a client-credentials request makes, each with its tokens. Every secret is stored as
// its SHA-256 only. An access token is looked up in the caller CTE of each statement
// (db/statements/engine/caller.ts) through token -> grant -> installation -> application, so revoking any
// of them refuses it at once.

const time = () => timestamp({ withTimezone: true, precision: 3 });

export const applications = pgTable(
  "applications",
  {
    id: id(),
    // The organisation that registered it; null for one registered dynamically (RFC 7591).
    orgId: uuid().references(() => organisations.id, { onDelete: "cascade" }),
    clientId: text().notNull().unique("applications_client_id_key"),
    name: text().notNull(),
    // Matched exactly (an http loopback one: any port), never by prefix.
    redirectUris: text().array().notNull(),
    // What it may ask for, .manage with its .read: a grant never holds more.
    scopes: text().array().notNull(),
    // A public client (no secret, PKCE only): a tool on a person's machine.
    public: boolean().notNull().default(false),
    secretHash: text(),
    // The secret before the last rotation, and when it stops working.
    previousSecretHash: text(),
    previousSecretExpiresAt: time(),
    createdByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: time().notNull().defaultNow(),
    updatedAt: time().notNull().defaultNow(),
    // Deleted: every installation ended, every token refused; kept so events and the audit can name it.
    deletedAt: time(),
  },
  (t) => [
    // GET /v1/settings/applications lists an organisation's applications.
    index("applications_org_idx").on(t.orgId, t.createdAt),
    check("applications_name_length", sql`char_length(${t.name}) between 1 and 200`),
    check("applications_secret_unless_public", sql`${t.public} or ${t.secretHash} is not null`),
  ],
);

export const installations = pgTable(
  "installations",
  {
    id: id(),
    orgId: uuid()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    applicationId: uuid()
      .notNull()
      .references(() => applications.id, { onDelete: "cascade" }),
    // What the organisation allowed it, .manage with its .read: the union of what consents granted.
    scopes: text().array().notNull(),
    installedByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    installedAt: time().notNull().defaultNow(),
    lastUsedAt: time(),
    // Uninstalled: its grants revoked, its webhooks off; installing again starts afresh.
    uninstalledAt: time(),
    rateLimit: integer().notNull().default(DEFAULT_RATE_LIMIT),
  },
  (t) => [
    // One installation per application and organisation.
    uniqueIndex("installations_application_org_key").on(t.applicationId, t.orgId),
    // GET /v1/settings/installations.
    index("installations_org_idx").on(t.orgId, t.installedAt),
    check("installations_rate_limit_positive", sql`${t.rateLimit} > 0`),
  ],
);

/**
 * One consent (a person allowing an installed application, through an authorization code) or one
 * client-credentials request: what its tokens hold. A reused code or refresh token revokes it.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: id(),
    installationId: uuid()
      .notNull()
      .references(() => installations.id, { onDelete: "cascade" }),
    // The person it acts for; null when the application acts as itself (client credentials).
    userId: uuid().references(() => users.id, { onDelete: "cascade" }),
    scopes: text().array().notNull(),
    // RFC 8707: the resource its tokens are for (the API's origin, or <origin>/mcp); null: none asked.
    resource: text(),
    // The authorization code, single use, and what its exchange must repeat (null for client credentials).
    codeHash: text().unique("oauth_grants_code_hash_key"),
    codeChallenge: text(),
    redirectUri: text(),
    codeExpiresAt: time(),
    codeUsedAt: time(),
    createdAt: time().notNull().defaultNow(),
    revokedAt: time(),
  },
  (t) => [index("oauth_grants_installation_idx").on(t.installationId)],
);

export const TOKEN_KINDS = ["access", "refresh"] as const;

export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    id: id(),
    grantId: uuid()
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    kind: text({ enum: TOKEN_KINDS }).notNull(),
    tokenHash: text().notNull().unique("oauth_tokens_token_hash_key"),
    // An access token a refresh asked narrower (RFC 6749 §6): what it holds, within its grant; null: the grant's scopes.
    scopes: text().array(),
    expiresAt: time().notNull(),
    createdAt: time().notNull().defaultNow(),
    // A refresh token used once (rotated): presenting it again revokes its grant.
    usedAt: time(),
    revokedAt: time(),
  },
  (t) => [
    // Revoking a grant's tokens; the sweep prunes expired ones.
    index("oauth_tokens_grant_idx").on(t.grantId),
    index("oauth_tokens_expires_idx").on(t.expiresAt),
    checkOneOf("oauth_tokens_kind_known", t.kind, TOKEN_KINDS),
  ],
);
