import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { MAIL_KINDS, MAIL_STATUSES } from "../../domain/mail.ts";
import { checkOneOf, id } from "./columns.ts";
import { organisations } from "./organisations.ts";

const time = () => timestamp({ withTimezone: true, precision: 3 });

// The mail outbox (docs/mail.md): one row per message, inserted by the statement that caused it,
// sent by the Worker and the sweep (services/mail.ts) and kept with its status.
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: id(),
    // The organisation the message concerns; none for an account's own mail (a password reset).
    orgId: uuid().references(() => organisations.id, { onDelete: "cascade" }),
    // The person it is for, when known (their audit entries name them).
    userId: uuid(),
    kind: text({ enum: MAIL_KINDS }).notNull(),
    toAddress: text().notNull(),
    subject: text().notNull(),
    textBody: text().notNull(),
    htmlBody: text().notNull(),
    headers: jsonb().$type<Record<string, string>>().notNull().default({}),
    status: text({ enum: MAIL_STATUSES }).notNull().default("queued"),
    attempts: integer().notNull().default(0),
    nextAttemptAt: time().notNull().defaultNow(),
    leaseUntil: time(),
    lastError: text(),
    sentAt: time(),
    createdAt: time().notNull().defaultNow(),
  },
  (t) => [
    // What the senders claim: the queued messages due, oldest first.
    index("mail_outbox_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'queued'`),
    index("mail_outbox_created_idx").on(t.createdAt),
    checkOneOf("mail_outbox_kind_valid", t.kind, MAIL_KINDS),
    checkOneOf("mail_outbox_status_valid", t.status, MAIL_STATUSES),
    check("mail_outbox_attempts_positive", sql`${t.attempts} >= 0`),
  ],
);
