import { Hono, type Context } from "hono";
import { clientOf } from "../../domain/client-address.ts";
import { DomainError } from "../../domain/errors.ts";
import {
  FAILED_SIGN_INS_PER_ACCOUNT,
  FAILED_SIGN_INS_PER_ADDRESS,
  PASSWORD_RESET_WINDOW_SECONDS,
  PASSWORD_RESETS_PER_ACCOUNT,
  PASSWORD_RESETS_PER_ADDRESS,
  SIGN_UP_WINDOW_SECONDS,
  SIGN_UPS_PER_ADDRESS,
} from "../../domain/limits.ts";
import { acceptInvitation, lookUpInvitation } from "../../services/invitations.ts";
import { deliverMail } from "../../services/mail.ts";
import { callerRefusals } from "../../services/refusals.ts";
import { roomsAt } from "../../services/room-client.ts";
import { auditSignInFailure } from "../../services/sessions.ts";
import { pathOf } from "../entry-points.ts";
import { settingsOf, type AppEnv } from "../env.ts";
import { auditRequestOf, deferFor, mailerFor } from "../http/context.ts";
import { jsonBodyProblem } from "../http/json-limits.ts";
import { clientAddress, forgetSessionHolder } from "../middleware/rate-limit.ts";
import { isSameOriginWrite, sessionTokenOf, withoutSessionToken } from "./session-cookie.ts";

// /auth/*: better-auth's endpoints (sign-up, sign-in, sign-out, the session), and the two steps of
// an invitation that come before a person belongs to the organisation. Answered 404 when the
// Worker has no AUTH_SECRET. docs/people.md describes the flow.

export const authRoutes = new Hono<AppEnv>();

/** The largest body /auth takes: a sign-up is a few hundred bytes. */
const MAX_AUTH_BODY_BYTES = 16 * 1024;
/** Fields of sign-up that opsroom stores and repeats (member lists, event actors): as long as any name. */
const NAME_FIELDS = ["name", "organisationName"];
const MAX_NAME_LENGTH = 200;

authRoutes.use("/auth/*", async (c, next) => {
  if (!settingsOf(c.env).auth) throw new DomainError("not_found", "people are not configured on this deployment (AUTH_SECRET is unset)");
  if (c.req.method === "POST") c.set("body", await authBody(c));
  await next();
});

/**
 * A POST to /auth is a JSON object of at most 16 KB, within the depth and size limits of every
 * body, whose strings are well-formed text (functions/http/json-limits.ts) holding no NUL (Postgres refuses
 * them) and whose names are at most 200 characters, checked before better-auth reads it: one
 * parse, the same body every limit below counts, and nothing half-created by a bad value.
 */
async function authBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  if (!/^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? "")) {
    throw new DomainError("unsupported_media_type", "send the body as application/json");
  }
  const text = await c.req.raw.clone().text();
  if (new TextEncoder().encode(text).length > MAX_AUTH_BODY_BYTES)
    throw new DomainError("payload_too_large", `the body is over ${MAX_AUTH_BODY_BYTES} bytes`);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw new DomainError("invalid_json", "the body is not valid JSON");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new DomainError("invalid_json", "the body must be a JSON object");
  const problem = jsonBodyProblem(body);
  if (problem) throw problem;
  for (const [field, value] of Object.entries(body)) {
    if (typeof value !== "string") continue;
    if (value.includes("\u0000")) throw new DomainError("invalid_field", `${field} must not contain NUL characters`, { field });
    if (NAME_FIELDS.includes(field) && value.length > MAX_NAME_LENGTH)
      throw new DomainError("invalid_field", `${field} must be at most ${MAX_NAME_LENGTH} characters`, { field });
  }
  return body as Record<string, unknown>;
}

/** Whom an invitation link is for, so the page can offer sign-up or sign-in with that address. */
authRoutes.get(pathOf("invitation"), async (c) => {
  const invitation = await lookUpInvitation({ ctx: { db: c.get("db") }, input: { token: c.req.param("token") } });
  return c.json({ success: true, version: "v1", message: "invitation", data: invitation });
});

/** A signed-in person accepts an invitation to their own address; their session switches to it. */
authRoutes.post(pathOf("acceptInvitation"), async (c) => {
  const auth = await authOf(c);
  if (!isSameOriginWrite(c)) throw callerRefusals.crossSite();
  const session = await auth.api.getSession({ headers: c.req.raw.headers });
  const sessionToken = await sessionTokenOf(c, settingsOf(c.env).auth!.secret);
  if (!session || !sessionToken) throw new DomainError("unauthorized", "sign in first, with the address the invitation is for");
  const body = c.get("body") as { token?: unknown };
  if (typeof body.token !== "string" || !body.token) throw new DomainError("missing_field", "token is required", { field: "token" });
  const accepted = await acceptInvitation({
    ctx: { db: c.get("db"), request: auditRequestOf(c), rooms: roomsAt(settingsOf(c.env).realtime), defer: deferFor(c) },
    input: { token: body.token, userId: session.user.id, sessionToken },
  });
  // The session acts for the organisation it joined: its calls are counted there now.
  forgetSessionHolder(sessionToken);
  return c.json({
    success: true,
    version: "v1",
    message: "invitation accepted",
    data: { organisation: accepted.orgId, role: accepted.role },
  });
});

/**
 * Sign-in attempts are counted per account and per client address (AuthGuard Durable Objects):
 * after FAILED_SIGN_INS_PER_ACCOUNT failures for one address of email, or FAILED_SIGN_INS_PER_ADDRESS
 * from one client, further attempts wait for the next minute (429, Retry-After) without a
 * password being checked.
 */
authRoutes.post(pathOf("signIn"), async (c) => {
  // The body was checked to be JSON (above), so the address better-auth signs in is the one counted.
  const { email } = c.get("body") as { email?: unknown };
  if (typeof email !== "string" || !email.trim()) throw new DomainError("missing_field", "email is required", { field: "email" });
  const guards = [
    { guard: guardOf(c, `sign-in:address:${clientOf(clientAddress(c))}`), limit: FAILED_SIGN_INS_PER_ADDRESS },
    { guard: guardOf(c, `sign-in:account:${email.trim().toLowerCase().slice(0, 320)}`), limit: FAILED_SIGN_INS_PER_ACCOUNT },
  ];
  for (const { guard, limit } of guards) {
    const decision = await guard.check(limit);
    if (decision.blocked) throw throttled(c, decision.retryAfter, "failed sign-ins");
  }
  const response = await handle(c);
  if (response.status === 401) {
    await Promise.all(guards.map(({ guard, limit }) => guard.fail(limit)));
    // Recorded however it ends; a failure to record is logged and the answer stays the 401.
    await auditSignInFailure({ db: c.get("db"), request: auditRequestOf(c) }, { email }).catch((error: unknown) =>
      console.error(JSON.stringify({ level: "error", message: "could not record a failed sign-in", cause: String(error) })),
    );
  }
  return response;
});

/**
 * Sign-ups are counted per client address (an AuthGuard of their own): past SIGN_UPS_PER_ADDRESS
 * in an hour, further ones wait for the next hour (429, Retry-After) before a password is hashed
 * or anything is created. Every sign-up counts, whatever its outcome: each costs a hash.
 */
authRoutes.post(pathOf("signUp"), async (c) => {
  const decision = await guardOf(c, `sign-up:address:${clientOf(clientAddress(c))}`).attempt(SIGN_UPS_PER_ADDRESS, SIGN_UP_WINDOW_SECONDS);
  if (decision.blocked) throw throttled(c, decision.retryAfter, "sign-ups from this address");
  const response = await handle(c);
  // The address's confirmation mail (with MAIL_URL), queued by better-auth's hook.
  if (settingsOf(c.env).mail) sendMailAfter(c);
  return response;
});

/**
 * A request that mails a link (a password reset, an address's confirmation, an address change):
 * counted per client address and per address it mails, every request whatever its outcome (each
 * may send a mail); past PASSWORD_RESETS_PER_ADDRESS or PASSWORD_RESETS_PER_ACCOUNT in an hour,
 * 429 with Retry-After. better-auth answers the same whether or not anyone has the address; the
 * mail is sent after the answer, as every request's mail is.
 */
async function mailingLink(c: Context<AppEnv>, field: "email" | "newEmail"): Promise<Response> {
  const address = (c.get("body") as Record<string, unknown>)[field];
  if (typeof address !== "string" || !address.trim()) throw new DomainError("missing_field", `${field} is required`, { field });
  const limits = [
    { name: `mail:address:${clientOf(clientAddress(c))}`, limit: PASSWORD_RESETS_PER_ADDRESS },
    { name: `mail:account:${address.trim().toLowerCase().slice(0, 320)}`, limit: PASSWORD_RESETS_PER_ACCOUNT },
  ];
  for (const { name, limit } of limits) {
    const decision = await guardOf(c, name).attempt(limit, PASSWORD_RESET_WINDOW_SECONDS);
    if (decision.blocked) throw throttled(c, decision.retryAfter, "mailed links");
  }
  const response = await handle(c);
  sendMailAfter(c);
  return response;
}

authRoutes.post(pathOf("requestPasswordReset"), (c) => mailingLink(c, "email"));
authRoutes.post(pathOf("sendVerificationEmail"), (c) => mailingLink(c, "email"));
authRoutes.post(pathOf("changeEmail"), (c) => mailingLink(c, "newEmail"));
/** The link of a confirmation mail: confirms the address (or changes it to the new one), then to the console. */
authRoutes.get(pathOf("verifyEmail"), (c) => handle(c));

/** Setting the new password with the link's token: a refused token counts as a failed sign-in of the client address. */
authRoutes.post(pathOf("resetPassword"), async (c) => {
  const guard = guardOf(c, `sign-in:address:${clientOf(clientAddress(c))}`);
  const decision = await guard.check(FAILED_SIGN_INS_PER_ADDRESS);
  if (decision.blocked) throw throttled(c, decision.retryAfter, "failed sign-ins");
  const response = await handle(c);
  if (response.status === 400) await guard.fail(FAILED_SIGN_INS_PER_ADDRESS);
  return response;
});

/** After the answer: the mail due, this request's included (better-auth's hooks have no waitUntil of their own). */
function sendMailAfter(c: Context<AppEnv>) {
  c.executionCtx.waitUntil(
    deliverMail({ db: c.get("db"), mailer: mailerFor(c.env) }, { seconds: 10 }).catch((error: unknown) =>
      console.warn(JSON.stringify({ level: "warn", message: "could not send the mail due", cause: String(error) })),
    ),
  );
}

// Only these of better-auth's endpoints are served; every other /auth path is a 404 answered here,
// before better-auth (or the database) is asked. (disabledPaths in auth.ts turns the rest off too.)
authRoutes.post(pathOf("signOut"), (c) => handle(c));
authRoutes.get(pathOf("getSession"), (c) => handle(c));

/** better-auth answers the request, which carries this request's id (X-Request-Id) for the audit entries its hooks write. */
async function handle(c: Context<AppEnv>): Promise<Response> {
  const request = new Request(c.req.raw);
  request.headers.set("x-request-id", c.get("requestId"));
  return withoutSessionToken(await (await authOf(c)).handler(request));
}

/** better-auth for this request's origin; the library is loaded when /auth is first called, not at every isolate's start. */
async function authOf(c: Context<AppEnv>) {
  const { authFor } = await import("./auth.ts");
  return authFor(c.env, new URL(c.req.url).origin);
}

function guardOf(c: Context<AppEnv>, name: string) {
  return c.env.AUTH_GUARD.get(c.env.AUTH_GUARD.idFromName(name));
}

/** The 429 of a guard that refused, with Retry-After. */
function throttled(c: Context<AppEnv>, retryAfter: number, what: string): DomainError {
  c.header("Retry-After", String(retryAfter));
  return new DomainError("rate_limited", `too many ${what}: wait ${retryAfter} s`, { retryAfter });
}
