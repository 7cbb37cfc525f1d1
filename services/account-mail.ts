import type { Database } from "../db/client.ts";
import { enqueueMail } from "../db/statements/mail.ts";
import { recordEmailChange, recordPasswordReset } from "../db/statements/sign-ins.ts";
import type { AuditRequest } from "../domain/audit.ts";
import { PASSWORD_RESET_SECONDS } from "../domain/limits.ts";
import { linkMail } from "../domain/mail.ts";

// An account's own mail (docs/mail.md): the password reset. better-auth makes the one-time token
// (functions/auth/auth.ts) and hands it here; the link is on the public origin, and the mail goes
// through the outbox like every other.

/** Queues the reset mail of the person `userId`; answers its outbox id. */
export function queuePasswordResetMail(
  ctx: { db: Database },
  input: { userId: string; email: string; publicOrigin: string; token: string },
) {
  return enqueueMail(
    ctx.db,
    linkMail({
      kind: "password_reset",
      to: input.email,
      subject: "Reset your opsroom password",
      lines: [
        "Someone (we hope you) asked to reset the password of your opsroom account.",
        `The link works once, for ${PASSWORD_RESET_SECONDS / 60} minutes; setting a new password signs you out everywhere. If it was not you, ignore this mail: your password stays as it is.`,
      ],
      link: `${input.publicOrigin}/reset-password#${encodeURIComponent(input.token)}`,
      action: "Choose a new password",
    }),
    { userId: input.userId },
  );
}

/**
 * Queues the mail that confirms an address: the person's own after sign-up, or the new one they
 * asked to change to (then the address changes when its link is followed). better-auth signs the
 * token; `change` says which of the two it is.
 */
export function queueAddressConfirmationMail(
  ctx: { db: Database },
  input: { userId: string; email: string; publicOrigin: string; token: string; change: boolean },
) {
  return enqueueMail(
    ctx.db,
    linkMail({
      kind: input.change ? "email_change" : "email_verification",
      to: input.email,
      subject: input.change ? "Confirm your new opsroom address" : "Confirm your opsroom address",
      lines: [
        input.change
          ? `Someone (we hope you) asked to change the address of an opsroom account to ${input.email}. It changes once you follow this link.`
          : `Confirm that ${input.email} is your address on opsroom.`,
        "The link works for an hour. If it was not you, ignore this mail.",
      ],
      link: `${input.publicOrigin}/auth/verify-email?token=${encodeURIComponent(input.token)}&callbackURL=${encodeURIComponent("/")}`,
      action: input.change ? "Change my address" : "Confirm my address",
    }),
    { userId: input.userId },
  );
}

/** A password set anew by a reset link, in the audit log (failures to record are logged; the reset stands). */
export async function auditPasswordReset(ctx: { db: Database; request: AuditRequest }, input: { userId: string }) {
  await recordPasswordReset(ctx.db, input.userId, ctx.request).catch((error: unknown) =>
    console.error(JSON.stringify({ level: "error", message: "could not record a password reset", cause: String(error) })),
  );
}

/** An address changed (the link mailed to the new one followed), in the audit log; failures to record are logged, and the change stands. */
export async function auditEmailChange(ctx: { db: Database; request: AuditRequest }, input: { userId: string; from: string; to: string }) {
  await recordEmailChange(ctx.db, input, ctx.request).catch((error: unknown) =>
    console.error(JSON.stringify({ level: "error", message: "could not record an address change", cause: String(error) })),
  );
}
