import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { DEFAULT_RATE_LIMIT } from "../../domain/limits.ts";
import { id, orgId } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { users } from "./people.ts";

export const apiKeys = pgTable(
  "api_keys",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    // The name of the application the key was issued to (GET /v1 "application").
    application: text().notNull(),
    // SHA-256 of the full key, hex. The key itself is never stored.
    keyHash: text().notNull().unique("api_keys_key_hash_key"),
    // First characters of the key, so a person can tell keys apart in `opsroom key list`.
    prefix: text().notNull(),
    // Granted scopes with the implied .read scopes already expanded, so SQL can test membership.
    scopes: text().array().notNull(),
    // The person who created it in the settings area; null for keys made by the CLI.
    createdByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    rateLimit: integer().notNull().default(DEFAULT_RATE_LIMIT),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    revokedAt: timestamp({ withTimezone: true, precision: 3 }),
    lastUsedAt: timestamp({ withTimezone: true, precision: 3 }),
  },
  (t) => [
    // `opsroom key list --org` lists an organisation's keys.
    index("api_keys_org_idx").on(t.orgId, t.createdAt),
    check("api_keys_rate_limit_positive", sql`${t.rateLimit} > 0`),
    check("api_keys_application_length", sql`char_length(${t.application}) between 1 and 200`),
  ],
);
