import type { Mailer, MailMessage } from "../../services/mail.ts";

// The Worker's mail transport: SMTP over a TCP socket (Cloudflare's connect(), through
// worker-mailer), to the server MAIL_URL names; one connection per message. worker-mailer is
// loaded when the first message is sent, not at every isolate's start.

/** MAIL_URL, read: the server, how it is reached, who signs in, who the mail is from. */
export interface MailSettings {
  host: string;
  port: number;
  /** smtps: TLS from the start; else STARTTLS when the server offers it. */
  secure: boolean;
  credentials: { username: string; password: string } | null;
  from: { name: string; email: string };
}

/** MAIL_URL's parts: smtp://user:pass@host:587 (STARTTLS when offered), smtps://...:465 (TLS from the start); ?from= the sender. */
export function parseMailUrl(value: string, publicOrigin: string): MailSettings | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an smtp:// or smtps:// URL";
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") return "must be an smtp:// or smtps:// URL";
  if (!url.hostname) return "must name a host";
  const secure = url.protocol === "smtps:";
  const given = url.searchParams.get("from");
  const named = given ? /^\s*(.*?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/.exec(given) : null;
  if (given && !named && !/^[^<>\s]+@[^<>\s]+$/.test(given)) return "?from= must be an address, or a name and <address>";
  const from = named
    ? { name: named[1]!.replace(/^"|"$/g, ""), email: named[2]! }
    : { name: "opsroom", email: given ?? `no-reply@${new URL(publicOrigin).hostname}` };
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    credentials: url.username ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : null,
    from,
  };
}

/** What one message is to worker-mailer: text and HTML, its Message-ID and extra headers. */
export function smtpMailer(settings: MailSettings, publicOrigin: string): Mailer {
  return {
    host: new URL(publicOrigin).hostname,
    async send(message: MailMessage) {
      const { LogLevel, WorkerMailer } = await import("worker-mailer");
      // A line break in a value would start a header of its own.
      const oneLine = (value: string) => value.replace(/[\r\n]+/g, " ");
      await WorkerMailer.send(
        {
          host: settings.host,
          port: settings.port,
          secure: settings.secure,
          startTls: !settings.secure,
          ...(settings.credentials ? { credentials: settings.credentials, authType: ["plain", "login"] } : {}),
          socketTimeoutMs: 10_000,
          logLevel: LogLevel.NONE,
          responseTimeoutMs: 10_000,
        },
        {
          from: settings.from,
          to: message.to,
          subject: oneLine(message.subject),
          text: message.text,
          html: message.html,
          headers: Object.fromEntries(
            Object.entries({ "Message-ID": message.messageId, ...message.headers }).map(([k, v]) => [k, oneLine(v)]),
          ),
        },
      );
    },
  };
}
