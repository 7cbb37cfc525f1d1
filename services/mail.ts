import type { Database } from "../db/client.ts";
import { claimDueMail, markMailRefused, markMailSent, nextMailDue, type ClaimedMail } from "../db/statements/mail.ts";
import { MAX_MAIL_ATTEMPTS, mailRetryDelaySeconds } from "../domain/mail.ts";

// Sending the mail outbox (docs/mail.md): the Worker sends what a request queued right after its
// answer (deliverMail with the new ids), and every sweep sends whatever is due (a message refused
// earlier, whose backoff is over). Each message is claimed by one sender, so none goes twice; a
// refusal (an SMTP 4xx or 5xx, a connection refused or timed out) queues it again, with a longer
// wait each time, and it is given up (failed) after MAX_MAIL_ATTEMPTS.

/** A message as the transport sends it: the outbox's row and its Message-ID. */
export interface MailMessage {
  /** <outbox id@host>: the same for every attempt of one message. */
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** Sends one message, or throws what refused it. The Worker's is SMTP over connect() (functions/mail/smtp.ts). */
export interface Mailer {
  /** The host of the Message-IDs (the public origin's). */
  host: string;
  send(message: MailMessage): Promise<void>;
}

export interface MailContext {
  db: Database;
  /** null: no MAIL_URL, the messages stay queued (and are sent once one is set). */
  mailer: Mailer | null;
}

/** Messages a sender claims at a time. */
const MAIL_BATCH = 25;

const warn = (message: string, facts: Record<string, unknown>) => console.warn(JSON.stringify({ level: "warn", message, ...facts }));

async function deliverOne(ctx: MailContext & { mailer: Mailer }, mail: ClaimedMail): Promise<boolean> {
  try {
    await ctx.mailer.send({ ...mail, messageId: `<${mail.id}@${ctx.mailer.host}>` });
  } catch (error) {
    const giveUp = mail.attempts >= MAX_MAIL_ATTEMPTS;
    warn(giveUp ? "mail given up" : "mail refused, queued again", {
      id: mail.id,
      kind: mail.kind,
      attempts: mail.attempts,
      cause: String(error),
    });
    await markMailRefused(ctx.db, { id: mail.id, error: String(error), retrySeconds: mailRetryDelaySeconds(mail.attempts), giveUp });
    return false;
  }
  await markMailSent(ctx.db, mail.id);
  return true;
}

/**
 * Sends the messages due (only those of `ids` when given: what one request queued), a batch at a
 * time, until none is left or `seconds` have gone. Answers how many went and how many were refused.
 */
export async function deliverMail(ctx: MailContext, options: { ids?: string[]; seconds?: number } = {}) {
  const outcome = { sent: 0, refused: 0 };
  if (!ctx.mailer) return outcome;
  const deadline = Date.now() + (options.seconds ?? 20) * 1000;
  while (Date.now() < deadline) {
    const claimed = await claimDueMail(ctx.db, MAIL_BATCH, options.ids ?? null);
    if (claimed.length === 0) break;
    for (const mail of claimed) {
      if (await deliverOne({ ...ctx, mailer: ctx.mailer }, mail)) outcome.sent += 1;
      else outcome.refused += 1;
    }
    if (options.ids) break;
  }
  return outcome;
}

/** When the next queued message falls due (ms since the epoch), or null: the sweep's wake-up time for mail. */
export const mailDueAt = (ctx: Pick<MailContext, "db">) => nextMailDue(ctx.db);
