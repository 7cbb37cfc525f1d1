import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organisations } from "./organisations.ts";

// The first response to a POST carrying Idempotency-Key, written in the same statement as the
// record it created, so a replay can only ever see a write that really committed.
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    // The key's id, or an application's grant's (db/statements/engine/caller.ts credential_id): whose
    // requests share the Idempotency-Keys. No foreign key, as it names either; the sweep prunes.
    keyId: uuid().notNull(),
    orgId: uuid()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    idempotencyKey: text().notNull(),
    // SHA-256 of method, path and body: the same key with another request is refused (422).
    requestHash: text().notNull(),
    status: integer().notNull(),
    response: jsonb().notNull(),
    // The changeVersion the write produced, answered again by a replay (null: it moved none).
    changeVersion: bigint({ mode: "number" }),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    // One response per key and Idempotency-Key; a concurrent duplicate fails on it and is replayed.
    primaryKey({ name: "idempotency_keys_pkey", columns: [t.keyId, t.idempotencyKey] }),
    // The sweep prunes replays older than 24 hours.
    index("idempotency_keys_created_idx").on(t.createdAt),
    check("idempotency_keys_key_length", sql`char_length(${t.idempotencyKey}) between 1 and 255`),
  ],
);
