import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { connectDatabase, type Database } from "../../db/client.ts";
import type { AuditRequest } from "../../domain/audit.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Mailer } from "../../services/mail.ts";
import { roomsAt } from "../../services/room-client.ts";
import { settingsOf, type AppEnv, type Bindings } from "../env.ts";
import { smtpMailer } from "../mail/smtp.ts";
import { subrequestsLeft } from "../subrequests.ts";

/** The database for the Worker's settings: one HTTP request per statement, nothing held open. */
export function databaseFor(env: Bindings): Database {
  return connectDatabase(settingsOf(env).database);
}

/** The mail transport for the Worker's settings (MAIL_URL); null when mail is not configured. */
export function mailerFor(env: Bindings): Mailer | null {
  const settings = settingsOf(env);
  return settings.mail ? smtpMailer(settings.mail, settings.publicOrigin) : null;
}

/** What notification mails link to (docs/notifications.md); null without AUTH_SECRET (no people, no notifications). */
export function notificationLinksFor(env: Bindings): ServiceContext["notificationLinks"] {
  const settings = settingsOf(env);
  return settings.auth ? { origin: settings.publicOrigin, secret: settings.auth.secret } : null;
}

/**
 * What each request carries: one database handle, which counts the request's statements (the log
 * line, and handler.ts's refusal order) and holds no connection (each statement is one HTTP request).
 */
export const requestState = createMiddleware<AppEnv>(async (c, next) => {
  c.set("db", databaseFor(c.env));
  await next();
});

/** Work after the answer: handed to waitUntil; a failure is logged with the request id. */
export function deferFor(c: Context<AppEnv>) {
  return (work: () => Promise<unknown>) =>
    c.executionCtx.waitUntil(
      work().catch((error: unknown) =>
        console.warn(
          JSON.stringify({ level: "warn", requestId: c.get("requestId"), message: "deferred work failed", cause: String(error) }),
        ),
      ),
    );
}

/** The services' context for this request: its database handle, its caller, the rooms. */
export function serviceContext(c: Context<AppEnv>): ServiceContext {
  return {
    db: c.get("db"),
    actor: c.get("actor"),
    rooms: roomsAt(settingsOf(c.env).realtime),
    mailer: mailerFor(c.env),
    notificationLinks: notificationLinksFor(c.env),
    defer: deferFor(c),
    observe: (changeVersion) => c.set("changeVersion", changeVersion),
    idempotency: c.get("idempotency"),
    request: auditRequestOf(c),
    subrequestsLeft,
  };
}

/** Where the request came from, as audit entries record it: the client's address (Cloudflare's), its user agent, the request id. */
export function auditRequestOf(c: Context<AppEnv>): AuditRequest {
  return { ...auditRequestOfHeaders(c.req.raw.headers), requestId: c.get("requestId") };
}

/**
 * The same from a request's headers alone (better-auth's hooks see only the request): the
 * request id is the X-Request-Id the Worker set on the request it handed over (functions/auth/routes.ts).
 */
export function auditRequestOfHeaders(headers: Headers | undefined): AuditRequest {
  return {
    clientAddress: headers?.get("cf-connecting-ip") ?? null,
    userAgent: headers?.get("user-agent") ?? null,
    requestId: headers?.get("x-request-id") ?? null,
  };
}

/** A context for work outside a request (the sweep, the room's calls): the system's own. */
export function backgroundContext(env: Bindings, executionCtx: ExecutionContext): Omit<ServiceContext, "actor"> {
  return {
    db: databaseFor(env),
    rooms: roomsAt(settingsOf(env).realtime),
    mailer: mailerFor(env),
    notificationLinks: notificationLinksFor(env),
    defer: (work) => executionCtx.waitUntil(work().catch(() => {})),
    subrequestsLeft,
  };
}
