import { sql } from "drizzle-orm";
import { bigint, boolean, pgTable, text } from "drizzle-orm/pg-core";
import { check } from "drizzle-orm/pg-core";
import { DEFAULT_ATTACHMENT_QUOTA_BYTES } from "../../domain/attachments.ts";
import { counter, id, timestamps } from "./columns.ts";

export const organisations = pgTable(
  "organisations",
  {
    id: id(),
    name: text().notNull(),
    // The organisation's change counter: every successful write adds exactly 1 (docs/api.md "changeVersion and events").
    changeVersion: counter(),
    // An owner's choice: applications registered dynamically (RFC 7591) may be installed here.
    allowDynamicClientRegistration: boolean().notNull().default(false),
    // An owner's choice: a person whose address is unconfirmed reaches none of its data (docs/people.md
    // "Confirmed addresses"; db/statements/engine/caller.ts).
    requireVerifiedEmail: boolean().notNull().default(false),
    // What the organisation may keep in attached files, in bytes (docs/attachments.md).
    attachmentQuotaBytes: bigint({ mode: "number" }).notNull().default(DEFAULT_ATTACHMENT_QUOTA_BYTES),
    // What it keeps now: the sum of its attachments' sizes, kept by a trigger on attachments in the
    // statement that inserts or deletes a row (cascades included), so neither a quota check nor
    // GET /v1 sums the files (custom migration attachment-usage).
    attachmentBytesUsed: bigint({ mode: "number" }).notNull().default(0),
    ...timestamps,
  },
  (t) => [
    check("organisations_name_length", sql`char_length(${t.name}) between 1 and 200`),
    check("organisations_change_version_non_negative", sql`${t.changeVersion} >= 0`),
    check("organisations_attachment_bytes_used_non_negative", sql`${t.attachmentBytesUsed} >= 0`),
  ],
);
