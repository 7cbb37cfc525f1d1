import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

// A mail catcher: a real SMTP server (smtp-server) that keeps every message it is given, parsed
// (mailparser), and an HTTP page listing them. `npm run dev` points the Worker's MAIL_URL at it
// (cli/dev.ts), and the tests read what the Worker sent from it (test/setup/global-setup.ts).
//
// HTTP: GET / (the page), GET /messages[?to=address] (JSON, oldest first), and, for the tests,
// POST /refuse {to, code, times}: the next `times` messages to `to` are refused with that SMTP code.

export const MAIL_CATCHER_SMTP_PORT = 1025;
export const MAIL_CATCHER_HTTP_PORT = 1080;

export interface CaughtMail {
  id: number;
  receivedAt: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export interface MailCatcher {
  /** smtp://127.0.0.1:<port>: what MAIL_URL is set to. */
  smtpUrl: string;
  /** The page and the JSON (http://127.0.0.1:<port>). */
  httpUrl: string;
  close(): Promise<void>;
}

interface Refusal {
  code: number;
  times: number;
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

function page(messages: CaughtMail[]): string {
  const rows = [...messages]
    .reverse()
    .map(
      (m) =>
        `<details><summary>${escapeHtml(m.receivedAt)} · to ${escapeHtml(m.to.join(", "))} · <b>${escapeHtml(m.subject)}</b></summary>` +
        `<pre>${escapeHtml(m.text)}</pre><iframe sandbox srcdoc="${escapeHtml(m.html)}" title="HTML of message ${m.id}" style="width:100%;height:16em"></iframe></details>`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>opsroom mail catcher</title></head>
<body style="font-family:sans-serif;max-width:60em;margin:auto"><h1>Mail caught: ${messages.length}</h1>
<p>Every message the Worker sent in development (newest first). Reload to see new ones.</p>${rows || "<p>None yet.</p>"}</body></html>`;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function listen(
  server: { listen(port: number, host: string, done: () => void): unknown; once(event: "error", f: (e: Error) => void): unknown },
  port: number,
) {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
}

/** The page, the JSON and the refusals' control. */
function httpSide(messages: CaughtMail[], refusals: Map<string, Refusal>): Server {
  return createHttpServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://catcher");
    if (request.method === "GET" && url.pathname === "/messages") {
      const to = url.searchParams.get("to")?.toLowerCase();
      response.writeHead(200, { "content-type": "application/json" });
      return response.end(JSON.stringify(to ? messages.filter((m) => m.to.includes(to)) : messages));
    }
    if (request.method === "POST" && url.pathname === "/refuse") {
      return void bodyOf(request).then((text) => {
        const { to, code, times } = JSON.parse(text) as { to: string; code: number; times: number };
        refusals.set(to.toLowerCase(), { code, times });
        response.writeHead(204).end();
      });
    }
    if (request.method === "GET" && url.pathname === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return response.end(page(messages));
    }
    response.writeHead(404).end();
  });
}

/** Starts the catcher on the given ports (0: any free one); `print` is told of each message. */
export async function startMailCatcher(
  options: { smtpPort?: number; httpPort?: number; print?: (line: string) => void } = {},
): Promise<MailCatcher> {
  const messages: CaughtMail[] = [];
  const refusals = new Map<string, Refusal>();
  const smtp = new SMTPServer({
    // Plain SMTP on loopback: neither sign-in nor TLS is offered (a MAIL_URL's credentials go unused).
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    size: 10 * 1024 * 1024,
    onRcptTo(address, _session, callback) {
      const refusal = refusals.get(address.address.toLowerCase());
      if (refusal && refusal.times > 0) {
        refusal.times -= 1;
        const error = Object.assign(new Error(`refused by the catcher for ${address.address}`), { responseCode: refusal.code });
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const headers: Record<string, string> = {};
          for (const line of parsed.headerLines) headers[line.key] = line.line.slice(line.line.indexOf(":") + 1).trim();
          const mail: CaughtMail = {
            id: messages.length + 1,
            receivedAt: new Date().toISOString(),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: typeof parsed.html === "string" ? parsed.html : "",
            headers,
          };
          messages.push(mail);
          options.print?.(`${mail.to.join(", ")} ← ${mail.subject}`);
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  const http = httpSide(messages, refusals);
  await listen(smtp.server, options.smtpPort ?? 0);
  try {
    await listen(http, options.httpPort ?? 0);
  } catch (error) {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    throw error;
  }
  const portOf = (server: Server | typeof smtp.server) => (server.address() as { port: number }).port;
  return {
    smtpUrl: `smtp://127.0.0.1:${portOf(smtp.server)}`,
    httpUrl: `http://127.0.0.1:${portOf(http)}`,
    close: async () => {
      http.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => smtp.close(() => resolve())),
        new Promise<void>((resolve) => http.close(() => resolve())),
      ]);
    },
  };
}
