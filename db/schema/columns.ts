import { bigint, integer, timestamp, uuid } from "drizzle-orm/pg-core";

// Shared columns. Ids are UUIDv7 minted by the caller (so they sort by creation); the database
// default only covers rows written by hand.
export const id = () => uuid().primaryKey().defaultRandom();

export const orgId = () => uuid().notNull();

export const timestamps = {
  createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
};

// Per-record optimistic concurrency counter: +1 on every change, sent as the ETag.
export const version = () => integer().notNull().default(1);

export const counter = () => bigint({ mode: "number" }).notNull().default(0);
