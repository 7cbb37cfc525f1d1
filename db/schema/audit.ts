import { sql } from "drizzle-orm";
import { bigint, check, date, index, jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import type { AuditActor, AuditChanges, AuditTarget } from "../../domain/audit.ts";
import { organisations } from "./organisations.ts";

// The audit log (docs/audit-log.md). Entries are only ever inserted (by the statement that makes
// the change they record) and deleted by retention; no statement updates one. Each carries the
// hash of the organisation's entry before it, so an edit or a gap shows (opsroom audit verify).
export const auditEntries = pgTable(
  "audit_entries",
  {
    id: uuid().primaryKey(),
    orgId: uuid()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    // 1, 2, ... per organisation, in the order the chain was appended (audit_heads).
    sequence: bigint({ mode: "number" }).notNull(),
    // Microseconds, as now() has them: the hash covers the value as stored.
    occurredAt: timestamp({ withTimezone: true }).notNull(),
    actor: jsonb().$type<AuditActor>().notNull(),
    action: text().notNull(),
    target: jsonb().$type<AuditTarget>().notNull(),
    changes: jsonb().$type<AuditChanges>(),
    clientAddress: text(),
    userAgent: text(),
    requestId: text(),
    // Hex SHA-256: hash = sha256(previousHash || sha256(the entry's canonical content)).
    previousHash: text().notNull(),
    hash: text().notNull(),
  },
  (t) => [
    // The chain's order, and GET /v1/audit-log's paging (newest first by sequence).
    unique("audit_entries_org_sequence_key").on(t.orgId, t.sequence),
    // Retention prunes by age across organisations.
    index("audit_entries_occurred_at_idx").on(t.occurredAt),
    check("audit_entries_sequence_positive", sql`${t.sequence} > 0`),
  ],
);

// The head of each organisation's chain: the last entry's sequence and hash. Appending updates
// this row (INSERT .. ON CONFLICT DO UPDATE), which orders an organisation's appends: a second
// statement waits for the first to commit and then sees its head, whatever its snapshot.
export const auditHeads = pgTable("audit_heads", {
  orgId: uuid()
    .primaryKey()
    .references(() => organisations.id, { onDelete: "cascade" }),
  sequence: bigint({ mode: "number" }).notNull(),
  previousHash: text().notNull(),
  hash: text().notNull(),
  // The last entry's content digest: how the appending statement hands it to ON CONFLICT's update.
  digest: text().notNull(),
  // What retention pruned through: the last entry it deleted, its hash and when it occurred. The
  // first entry kept must follow it, or the chain does not verify (a prefix deleted by hand).
  prunedSequence: bigint({ mode: "number" }),
  prunedHash: text(),
  prunedOccurredAt: timestamp({ withTimezone: true }),
});

// The MCP sessions recorded (docs/audit-log.md): one row per key or installation (credential_id)
// and UTC day, inserted ON CONFLICT DO NOTHING by every MCP call's statement; the insert that adds
// the row appends mcp.session_started. The sweep drops the days before yesterday.
export const mcpSessionDays = pgTable(
  "mcp_session_days",
  {
    credentialId: uuid().notNull(),
    day: date().notNull(),
    orgId: uuid()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.credentialId, t.day] })],
);
