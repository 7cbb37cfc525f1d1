import type { Notification } from "../db/statements/notification-inbox.ts";
import type { NotificationMail } from "../db/statements/notifications.ts";
import { signUnsubscribe, type UnsubscribeTarget } from "../domain/crypto/unsubscribe-token.ts";
import { uuidv7 } from "../domain/ids.ts";
import { escapeHtml } from "../domain/mail.ts";

// Notification mails (docs/notifications.md "Mail"): one notification's own mail, or a morning's
// digest of many; plain text and HTML of the same words, with a link to the record in the console
// and the List-Unsubscribe and List-Unsubscribe-Post headers of RFC 8058 (one-click), whose signed
// link turns off that kind of mail (or the digest) for that person.

export interface MailLinks {
  origin: string;
  secret: string;
}

const RECORD_NOUNS: Record<string, string> = { task: "task", project: "project", risk: "risk" };

/** One line saying what happened, as the inbox and the mails word it. */
export function headline(n: Notification): string {
  const who = n.actor.onBehalfOf ? `${n.actor.name} (for ${n.actor.onBehalfOf.name})` : n.actor.name;
  const what = `${RECORD_NOUNS[n.record.type] ?? n.record.type} "${n.record.title}"`;
  switch (n.kind) {
    case "assigned":
      return `${who} assigned you the ${what}`;
    case "mentioned":
      return `${who} mentioned you on the ${what}`;
    case "commented":
      return `${who} commented on the ${what}`;
    default:
      return n.event.type.endsWith(".deleted")
        ? `${who} deleted the ${what}`
        : n.event.type.endsWith(".created")
          ? `${who} created the ${what}`
          : `${who} changed ${n.fields.length ? n.fields.join(", ") : "something"} of the ${what}`;
  }
}

/** Where the record opens in the console. */
export const recordLink = (origin: string, n: Pick<Notification, "record">) => `${origin}/?${n.record.type}=${n.record.id}`;

async function unsubscribeHeaders(links: MailLinks, userId: string, target: UnsubscribeTarget) {
  const url = `${links.origin}/unsubscribe?token=${encodeURIComponent(await signUnsubscribe(links.secret, { userId, target }))}`;
  return { url, headers: { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" } };
}

function body(items: Array<{ line: string; excerpt: string | null; link: string }>, unsubscribe: { url: string; what: string }) {
  const text =
    items.map((i) => `${i.line}${i.excerpt ? `\n  "${i.excerpt}"` : ""}\n  ${i.link}`).join("\n\n") +
    `\n\n--\nStop ${unsubscribe.what}: ${unsubscribe.url}\n`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif">` +
    items
      .map(
        (i) =>
          `<p><a href="${escapeHtml(i.link)}">${escapeHtml(i.line)}</a>` +
          (i.excerpt ? `<br><span style="color:#444">&ldquo;${escapeHtml(i.excerpt)}&rdquo;</span>` : "") +
          `</p>`,
      )
      .join("") +
    `<p style="color:#666;font-size:small"><a href="${escapeHtml(unsubscribe.url)}">Stop ${escapeHtml(unsubscribe.what)}</a></p></body></html>`;
  return { text, html };
}

/** One notification's own mail. */
export async function notificationMail(
  links: MailLinks,
  to: { userId: string; email: string },
  n: Notification,
): Promise<NotificationMail> {
  const unsubscribe = await unsubscribeHeaders(links, to.userId, n.kind);
  const line = headline(n);
  return {
    mailId: uuidv7(),
    notificationIds: [n.id],
    waiting: "pending",
    to: to.email,
    subject: line,
    ...body([{ line, excerpt: n.excerpt, link: recordLink(links.origin, n) }], {
      url: unsubscribe.url,
      what: `mail of this kind (${n.kind})`,
    }),
    headers: unsubscribe.headers,
  };
}

/** A morning's digest: every notification waiting for it, in one mail. */
export async function digestMail(
  links: MailLinks,
  to: { userId: string; email: string },
  items: Notification[],
): Promise<NotificationMail> {
  const unsubscribe = await unsubscribeHeaders(links, to.userId, "digest");
  return {
    mailId: uuidv7(),
    notificationIds: items.map((n) => n.id),
    waiting: "digest",
    to: to.email,
    subject: `opsroom: ${items.length} ${items.length === 1 ? "notification" : "notifications"} since your last digest`,
    ...body(
      items.map((n) => ({ line: headline(n), excerpt: n.excerpt, link: recordLink(links.origin, n) })),
      { url: unsubscribe.url, what: "the daily digest" },
    ),
    headers: unsubscribe.headers,
  };
}
