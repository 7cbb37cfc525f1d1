// Mail (docs/mail.md): what opsroom sends, and how a message that could not be sent is tried again.
// Every message goes through the mail_outbox table, written by the statement that caused it, and is
// sent by the Worker (right after the answer, and by every sweep) over SMTP (MAIL_URL).

/** What a message is about. The security mails' failures are recorded in the audit log. */
export const MAIL_KINDS = ["password_reset", "email_verification", "email_change", "invitation", "notification", "digest"] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export const SECURITY_MAIL_KINDS: readonly MailKind[] = ["password_reset", "email_verification", "email_change", "invitation"];

/**
 * A message's state: queued (waiting for its next attempt), sending (claimed by one sender), sent,
 * or failed (given up: MAX_MAIL_ATTEMPTS refused, or a send interrupted after the message may have
 * gone: never tried again, so that no one gets it twice).
 */
export const MAIL_STATUSES = ["queued", "sending", "sent", "failed"] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/** Attempts before a message is given up. */
export const MAX_MAIL_ATTEMPTS = 8;
/** How long one sender holds a claimed message: longer than any SMTP conversation it may have. */
export const MAIL_LEASE_SECONDS = 120;
/** The wait before the next attempt after `attempts` refused ones: 30 s, 1 min, 2 min, ... at most 6 h. */
export const mailRetryDelaySeconds = (attempts: number) => Math.min(30 * 2 ** Math.max(0, attempts - 1), 6 * 3600);

/** A message as the outbox keeps it. */
export interface OutgoingMail {
  kind: MailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post for notification mail). */
  headers?: Record<string, string>;
}

/** Escapes text for HTML. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A plain mail with one link: text and HTML of the same words. */
export function linkMail(input: {
  kind: MailKind;
  to: string;
  subject: string;
  lines: string[];
  link: string;
  action: string;
}): OutgoingMail {
  const text = `${input.lines.join("\n\n")}\n\n${input.action}: ${input.link}\n`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif">` +
    input.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join("") +
    `<p><a href="${escapeHtml(input.link)}">${escapeHtml(input.action)}</a></p>` +
    `<p style="color:#666;font-size:small">${escapeHtml(input.link)}</p></body></html>`;
  return { kind: input.kind, to: input.to, subject: input.subject, text, html };
}
