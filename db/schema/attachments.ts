import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { ATTACHMENT_NAME_MAX_LENGTH } from "../../domain/attachments.ts";
import type { EventActor } from "../../domain/events.ts";
import { id, orgId, timestamps, version } from "./columns.ts";
import { comments } from "./comments.ts";
import { financialEntries } from "./financial-entries.ts";
import { issues } from "./issues.ts";
import { organisations } from "./organisations.ts";
import { risks } from "./risks.ts";
import { tasks } from "./tasks.ts";

// Files on records (docs/attachments.md). The bytes are in R2 under the organisation's prefix
// (objectKey); this row is the record. Exactly one parent column is set; deleting the parent
// deletes the row (cascade), and every deleted row leaves its object key in attachment_removals
// (a trigger, custom migration), which the Worker empties after the commit and the sweep retries.
const cascade = { onDelete: "cascade" } as const;

export const attachments = pgTable(
  "attachments",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    taskId: uuid().references(() => tasks.id, cascade),
    commentId: uuid().references(() => comments.id, cascade),
    riskId: uuid().references(() => risks.id, cascade),
    issueId: uuid().references(() => issues.id, cascade),
    financialEntryId: uuid().references(() => financialEntries.id, cascade),
    name: text().notNull(),
    size: bigint({ mode: "number" }).notNull(),
    sha256: text().notNull(),
    // Detected from the file's first bytes (domain/attachments.ts), never the client's word.
    contentType: text().notNull(),
    // Who uploaded it, as events name an actor.
    uploader: jsonb().$type<EventActor>().notNull(),
    objectKey: text().notNull(),
    version: version(),
    ...timestamps,
  },
  (t) => [
    check("attachments_one_parent", sql`num_nonnulls(${t.taskId}, ${t.commentId}, ${t.riskId}, ${t.issueId}, ${t.financialEntryId}) = 1`),
    check("attachments_name_length", sql`char_length(${t.name}) between 1 and ${sql.raw(String(ATTACHMENT_NAME_MAX_LENGTH))}`),
    check("attachments_size", sql`${t.size} >= 0`),
    check("attachments_sha256", sql`${t.sha256} ~ '^[0-9a-f]{64}$'`),
    index("attachments_task_idx").on(t.taskId, t.createdAt, t.id),
    index("attachments_comment_idx").on(t.commentId, t.createdAt, t.id),
    index("attachments_risk_idx").on(t.riskId, t.createdAt, t.id),
    index("attachments_issue_idx").on(t.issueId, t.createdAt, t.id),
    index("attachments_financial_entry_idx").on(t.financialEntryId, t.createdAt, t.id),
    index("attachments_org_idx").on(t.orgId),
  ],
);

/**
 * Objects to delete from R2: the key of every attachment row deleted, by whatever path (its own
 * DELETE, its parent's, its organisation's), written in the deleting statement by a trigger.
 */
export const attachmentRemovals = pgTable("attachment_removals", {
  objectKey: text().primaryKey(),
  orgId: uuid().notNull(),
  attempts: bigint({ mode: "number" }).notNull().default(0),
  createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
});

/**
 * A multipart upload under way (docs/attachments.md "Large files"): the file's stated size and
 * SHA-256, the part size every part but the last has, and R2's multipart upload it is sent into.
 * Not a record: no events, no changeVersion; the attachment is recorded when it completes. One
 * parent column is set, cascading as an attachment's; the sweep aborts those untouched 24 hours.
 */
export const attachmentUploads = pgTable(
  "attachment_uploads",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    taskId: uuid().references(() => tasks.id, cascade),
    commentId: uuid().references(() => comments.id, cascade),
    riskId: uuid().references(() => risks.id, cascade),
    issueId: uuid().references(() => issues.id, cascade),
    financialEntryId: uuid().references(() => financialEntries.id, cascade),
    name: text().notNull(),
    size: bigint({ mode: "number" }).notNull(),
    sha256: text().notNull(),
    partSize: bigint({ mode: "number" }).notNull(),
    objectKey: text().notNull(),
    r2UploadId: text().notNull(),
    uploader: jsonb().$type<EventActor>().notNull(),
    ...timestamps,
  },
  (t) => [
    check(
      "attachment_uploads_one_parent",
      sql`num_nonnulls(${t.taskId}, ${t.commentId}, ${t.riskId}, ${t.issueId}, ${t.financialEntryId}) = 1`,
    ),
    check("attachment_uploads_sha256", sql`${t.sha256} ~ '^[0-9a-f]{64}$'`),
    check("attachment_uploads_size", sql`${t.size} > 0 and ${t.partSize} > 0`),
    index("attachment_uploads_org_idx").on(t.orgId),
    index("attachment_uploads_updated_idx").on(t.updatedAt),
  ],
);

/** The parts of an upload that arrived whole, with the SHA-256 stated for each and checked, and R2's etag. */
export const attachmentUploadParts = pgTable(
  "attachment_upload_parts",
  {
    uploadId: uuid()
      .notNull()
      .references(() => attachmentUploads.id, { onDelete: "cascade" }),
    orgId: orgId(),
    partNumber: integer().notNull(),
    size: bigint({ mode: "number" }).notNull(),
    sha256: text().notNull(),
    etag: text().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.uploadId, t.partNumber] })],
);
