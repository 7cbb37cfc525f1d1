import { sql } from "drizzle-orm";
import { boolean, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { ROLES } from "../../domain/roles.ts";
import { checkOneOf, id, timestamps } from "./columns.ts";
import { organisations } from "./organisations.ts";

// People: the four tables better-auth keeps (users, their sessions, their credentials, one-time
// verification values), with better-auth's field names in camelCase (snake_case in SQL), and the
// two opsroom adds: who belongs to which organisation with which role, and the invitations.
// better-auth reads and writes them through its drizzle adapter (functions/auth/auth.ts); every
// other statement that needs them (the caller of a /v1 call, the settings area) is ours.

const time = () => timestamp({ withTimezone: true, precision: 3 });

export const users = pgTable("users", {
  id: id(),
  name: text().notNull(),
  // Stored lower-cased by better-auth: one account per address.
  email: text().notNull().unique("users_email_key"),
  emailVerified: boolean().notNull().default(false),
  image: text(),
  ...timestamps,
});

export const sessions = pgTable(
  "sessions",
  {
    id: id(),
    // The session's secret: the cookie carries it, signed (functions/auth/session-cookie.ts).
    token: text().notNull().unique("sessions_token_key"),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: time().notNull(),
    ipAddress: text(),
    userAgent: text(),
    // The organisation the session acts for (chosen at sign-in; a membership of the user).
    activeOrgId: uuid().references(() => organisations.id, { onDelete: "set null" }),
    ...timestamps,
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const accounts = pgTable(
  "accounts",
  {
    id: id(),
    // For email and password: providerId "credential", accountId the user's id, password its hash.
    accountId: text().notNull(),
    providerId: text().notNull(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessToken: text(),
    refreshToken: text(),
    idToken: text(),
    accessTokenExpiresAt: time(),
    refreshTokenExpiresAt: time(),
    scope: text(),
    password: text(),
    ...timestamps,
  },
  (t) => [index("accounts_user_idx").on(t.userId)],
);

export const verifications = pgTable(
  "verifications",
  {
    id: id(),
    identifier: text().notNull(),
    value: text().notNull(),
    expiresAt: time().notNull(),
    ...timestamps,
  },
  (t) => [index("verifications_identifier_idx").on(t.identifier)],
);

export const memberships = pgTable(
  "memberships",
  {
    orgId: uuid()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text({ enum: ROLES }).notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId] }),
    // A user's organisations (the active one is chosen at sign-in).
    index("memberships_user_idx").on(t.userId, t.createdAt),
    checkOneOf("memberships_role_known", t.role, ROLES),
  ],
);

export const invitations = pgTable(
  "invitations",
  {
    id: id(),
    orgId: uuid()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    // Lower-cased; the invitee signs up or in with this address to accept.
    email: text().notNull(),
    role: text({ enum: ROLES }).notNull(),
    // SHA-256 of the one-time token in the invitation link; the token itself is never stored.
    tokenHash: text().notNull().unique("invitations_token_hash_key"),
    invitedBy: uuid().references(() => users.id, { onDelete: "set null" }),
    expiresAt: time().notNull(),
    acceptedAt: time(),
    acceptedBy: uuid().references(() => users.id, { onDelete: "set null" }),
    revokedAt: time(),
    createdAt: time().notNull().defaultNow(),
  },
  (t) => [
    index("invitations_org_idx").on(t.orgId, t.createdAt),
    // One open invitation per address and organisation.
    uniqueIndex("invitations_open_email_key")
      .on(t.orgId, t.email)
      .where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
    checkOneOf("invitations_role_known", t.role, ROLES),
  ],
);
