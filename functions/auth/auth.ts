import { betterAuth, type BetterAuthOptions } from "better-auth";
import { APIError } from "better-auth/api";
import { authDatabaseFor } from "../../db/auth-database.ts";
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "../../domain/crypto/passwords.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { PASSWORD_RESET_SECONDS } from "../../domain/limits.ts";
import { auditEmailChange, auditPasswordReset, queueAddressConfirmationMail, queuePasswordResetMail } from "../../services/account-mail.ts";
import { roomsAt } from "../../services/room-client.ts";
import { auditSession, endSession } from "../../services/sessions.ts";
import { checkSignUp, welcomeNewUser } from "../../services/users.ts";
import { settingsOf, type Bindings } from "../env.ts";
import { auditRequestOfHeaders, databaseFor } from "../http/context.ts";
import { COOKIE_PREFIX } from "./session-cookie.ts";

// People sign in with better-auth (https://better-auth.com): email and password, sessions in
// HttpOnly cookies, on the same Postgres through its drizzle adapter (tables in db/schema/people.ts).
// Mounted at /auth (functions/auth/routes.ts); the console's pages call it. What opsroom adds:
//
// - passwords hashed with WebCrypto PBKDF2 (domain/crypto/passwords.ts), native to Workers;
// - a new user either joins an organisation by invitation or, when sign-up is open, gets one of
//   their own as its owner (services/users.ts); each session acts for one organisation;
// - ids are UUIDv7 like every other row; better-auth's own rate limiter is off: sign-in attempts
//   are counted per account and per address by the Worker's AuthGuard (routes.ts).

/** How long a session lasts without use, and how often use extends it (better-auth's defaults). */
export const SESSION_DAYS = 7;

function createAuth(env: Bindings, origin: string) {
  const settings = settingsOf(env);
  if (!settings.auth) throw new Error("people are not configured (AUTH_SECRET is unset)");
  const db = databaseFor(env);
  return betterAuth({
    appName: "opsroom",
    baseURL: origin,
    basePath: "/auth",
    secret: settings.auth.secret,
    trustedOrigins: [origin],
    telemetry: { enabled: false },
    database: authDatabaseFor(settings.database),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      password: { hash: hashPassword, verify: verifyPassword },
      // Sign-up needs an invitation when self-service sign-up is off (checked in the hook below).
      autoSignIn: true,
      // Password resets, when mail can be sent (docs/people.md): a one-time link for an hour, to
      // the address, on the public origin; every session of the person ends with the reset.
      ...(settings.mail
        ? {
            resetPasswordTokenExpiresIn: PASSWORD_RESET_SECONDS,
            revokeSessionsOnPasswordReset: true,
            async sendResetPassword({ user, token }: { user: { id: string; email: string }; token: string }) {
              await queuePasswordResetMail({ db }, { userId: user.id, email: user.email, publicOrigin: settings.publicOrigin, token });
            },
            async onPasswordReset({ user }: { user: { id: string } }, request?: Request) {
              await auditPasswordReset({ db, request: auditRequestOfHeaders(request?.headers) }, { userId: user.id });
            },
          }
        : {}),
    },
    // With mail: the address is confirmed by a link mailed at sign-up (and on request), and an
    // address is changed only once a link mailed to the new one is followed (docs/people.md).
    ...(settings.mail
      ? {
          emailVerification: {
            sendOnSignUp: true,
            expiresIn: PASSWORD_RESET_SECONDS,
            async sendVerificationEmail({ user, token }: { user: { id: string; email: string }; token: string }) {
              const change = typeof payloadOf(token).updateTo === "string";
              await queueAddressConfirmationMail(
                { db },
                { userId: user.id, email: user.email, publicOrigin: settings.publicOrigin, token, change },
              );
            },
          },
          user: { changeEmail: { enabled: true } },
        }
      : {}),
    session: {
      expiresIn: SESSION_DAYS * 24 * 60 * 60,
      additionalFields: { activeOrgId: { type: "string", required: false, input: false } },
    },
    rateLimit: { enabled: false },
    // Only what opsroom offers is served: sign-up, sign-in, sign-out, the session and (with mail)
    // the password reset, which routes.ts limits. The rest of better-auth's endpoints (password
    // change and checks, session lists, account linking, social sign-in) are off: each would be
    // another way in that the sign-in limits do not cover.
    disabledPaths: settings.mail ? DISABLED_PATHS : [...DISABLED_PATHS, ...MAIL_PATHS],
    advanced: {
      cookiePrefix: COOKIE_PREFIX,
      useSecureCookies: origin.startsWith("https://"),
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", path: "/" },
      database: { generateId: () => uuidv7() },
      ipAddress: { ipAddressHeaders: ["cf-connecting-ip"] },
    },
    databaseHooks: databaseHooksFor(db, settings),
  });
}

/** What follows better-auth's writes: the rooms told of a sign-out, sign-ups checked and welcomed, sign-ins, sign-outs and address changes audited. */
function databaseHooksFor(db: ReturnType<typeof databaseFor>, settings: ReturnType<typeof settingsOf>): BetterAuthOptions["databaseHooks"] {
  return {
    session: {
      create: {
        async after(session, context) {
          // A sign-up signs in too; the audit log records it once, as the sign-up (services/users.ts).
          if (context?.path.startsWith("/sign-up")) return;
          await recordSession(db, context, { action: "user.signed_in", userId: session.userId, orgId: activeOrgOf(session) });
        },
      },
      delete: {
        async after(session, context) {
          await recordSession(db, context, { action: "user.signed_out", userId: session.userId, orgId: activeOrgOf(session) });
          // Sign-out never fails on the room: a room not told keeps the sockets until they drop,
          // and the session's tokens open no new ones (the room asks the Worker at each connect).
          await endSession({ db, rooms: roomsAt(settings.realtime) }, { sessionId: session.id, userId: session.userId }).catch(
            (error: unknown) =>
              console.warn(JSON.stringify({ level: "warn", message: "could not tell the rooms of a sign-out", cause: String(error) })),
          );
        },
      },
    },
    user: {
      create: {
        async before(user, context) {
          const refusal = await checkSignUp(
            { db, signup: settings.auth!.signup },
            { email: user.email, invitation: invitationOf(context?.body) },
          );
          if (refusal) throw new APIError("FORBIDDEN", { message: refusal, code: "SIGN_UP_CLOSED" });
        },
        async after(user, context) {
          // better-auth's hooks have no waitUntil: what the welcome defers (the new member's person
          // to the room) runs before the sign-up answers; a failure is logged and left to the sweep.
          const deferred: Promise<unknown>[] = [];
          const defer = (work: () => Promise<unknown>) => void deferred.push(work().catch(warnUnpublished));
          await welcomeNewUser(
            { db, rooms: roomsAt(settings.realtime), defer, request: auditRequestOfHeaders(context?.headers) },
            {
              userId: user.id,
              email: user.email,
              name: user.name,
              invitation: invitationOf(context?.body),
              organisationName: stringOf(context?.body, "organisationName"),
            },
          );
          await Promise.all(deferred);
        },
      },
      update: {
        async after(user, context) {
          // An address changes only when the link mailed to the new one is followed: its token
          // names the old address and the new (better-auth checked both before this update).
          if (context?.path !== "/verify-email") return;
          const token = (context.query as { token?: unknown } | undefined)?.token;
          const claims = typeof token === "string" ? payloadOf(token) : {};
          const [from, to] = [claims.email, claims.updateTo];
          if (typeof from !== "string" || typeof to !== "string" || to !== user.email || from === to) return;
          await auditEmailChange({ db, request: auditRequestOfHeaders(context.headers) }, { userId: user.id, from, to });
        },
      },
    },
  };
}

const warnUnpublished = (error: unknown) =>
  console.warn(JSON.stringify({ level: "warn", message: "could not tell the room of a new member's person", cause: String(error) }));

const activeOrgOf = (session: Record<string, unknown>) => (typeof session.activeOrgId === "string" ? session.activeOrgId : null);

/** A sign-in or sign-out in the audit log; one that cannot be recorded is logged, and the person still gets in or out. */
async function recordSession(
  db: ReturnType<typeof databaseFor>,
  context: { headers?: Headers | undefined } | null,
  input: Parameters<typeof auditSession>[1],
): Promise<void> {
  await auditSession({ db, request: auditRequestOfHeaders(context?.headers) }, input).catch((error: unknown) =>
    console.error(JSON.stringify({ level: "error", message: `could not record ${input.action} in the audit log`, cause: String(error) })),
  );
}

function stringOf(body: unknown, name: string): string | undefined {
  const value = (body as Record<string, unknown> | null | undefined)?.[name];
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

const invitationOf = (body: unknown) => stringOf(body, "invitation");

/** The endpoints that mail a link (reset, confirmation, address change): served only when mail can be sent (MAIL_URL). */
const MAIL_PATHS = ["/request-password-reset", "/reset-password", "/send-verification-email", "/verify-email", "/change-email"];

/** The claims of a better-auth verification token (a JWT it signed and will check again). */
function payloadOf(token: string): Record<string, unknown> {
  try {
    const part = token.split(".")[1] ?? "";
    return JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export const DISABLED_PATHS = [
  "/update-user",
  "/update-session",
  "/change-password",
  "/verify-password",
  "/set-password",
  "/delete-user",
  "/list-sessions",
  "/revoke-session",
  "/revoke-sessions",
  "/revoke-other-sessions",
  "/list-accounts",
  "/account-info",
  "/unlink-account",
  "/link-social",
  "/get-access-token",
  "/refresh-token",
  "/sign-in/social",
];

export type Auth = ReturnType<typeof createAuth>;

const instances = new WeakMap<object, Map<string, Auth>>();

/** better-auth for this Worker's settings and the request's origin: one per isolate and origin. */
export function authFor(env: Bindings, origin: string): Auth {
  let byOrigin = instances.get(env);
  if (!byOrigin) instances.set(env, (byOrigin = new Map()));
  let auth = byOrigin.get(origin);
  if (!auth) byOrigin.set(origin, (auth = createAuth(env, origin)));
  return auth;
}
