import type { Database } from "../db/client.ts";
import { MANAGE_SETTINGS } from "../db/statements/engine/settings-caller.ts";
import * as statements from "../db/statements/invitations.ts";
import { NO_REQUEST, type AuditRequest } from "../domain/audit.ts";
import { generateApiKey } from "../domain/crypto/api-keys.ts";
import { sha256Hex } from "../domain/crypto/hash.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import { linkMail } from "../domain/mail.ts";
import type { Role } from "../domain/roles.ts";
import type { Call, ServiceContext } from "./context.ts";
import { deliverMail } from "./mail.ts";
import { publishAfterCommit } from "./rooms.ts";
import { settleCaller } from "./settle.ts";

// Invitations (docs/people.md): owners and admins invite an address with a role; the link's
// one-time token is answered once and kept as its hash. The invitee accepts by signing up with
// it (services/users.ts) or, signed in, here.

export type { Invitation } from "../db/statements/invitations.ts";

/** How long an invitation link stays valid. */
export const INVITATION_DAYS = 7;

export async function listInvitations({ ctx }: Call<Record<string, never>>) {
  const outcome = await statements.listInvitations(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  return outcome.invitations;
}

/**
 * Invites an address with a role. The link (on the public origin) is mailed to the address by the
 * same statement, and the answer carries it too, shown once (only the token's hash is kept).
 */
export async function createInvitation({ ctx, input }: Call<{ email: string; role: Role; publicOrigin: string }>) {
  const token = generateApiKey().slice(4);
  const email = input.email.trim().toLowerCase();
  const url = `${input.publicOrigin}/invite#${token}`;
  let outcome;
  try {
    outcome = await statements.createInvitation(
      ctx.db,
      ctx.actor,
      {
        id: uuidv7(),
        email,
        role: input.role,
        tokenHash: sha256Hex(token),
        expiresInDays: INVITATION_DAYS,
        mail: linkMail({
          kind: "invitation",
          to: email,
          subject: "You are invited to an organisation on opsroom",
          lines: [
            `You are invited to join an organisation on opsroom as ${input.role}.`,
            `The link works once, for ${INVITATION_DAYS} days: sign up or sign in with this address (${email}) to accept.`,
          ],
          link: url,
          action: "Accept the invitation",
        }),
      },
      ctx.request ?? NO_REQUEST,
    );
  } catch (error) {
    if ((error as { constraint?: string }).constraint === "invitations_open_email_key") {
      throw new DomainError("conflict", `${email} already has an open invitation: revoke it to send a new one`, { field: "email" });
    }
    throw error;
  }
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (!outcome.permitted) throw new DomainError("insufficient_role", "only an owner invites an owner", { roles: ["owner"], field: "role" });
  if (outcome.alreadyMember) throw new DomainError("conflict", `${email} is already a member`, { field: "email" });
  const mailId = outcome.mailId;
  if (mailId) ctx.defer(() => deliverMail({ db: ctx.db, mailer: ctx.mailer ?? null }, { ids: [mailId] }));
  return { invitation: outcome.invitation!, token, url };
}

export async function revokeInvitation({ ctx, input }: Call<{ invitationId: string }>) {
  const outcome = await statements.revokeInvitation(ctx.db, ctx.actor, input.invitationId);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (!outcome.revoked) throw notFound("open invitation");
}

/** Whom an invitation link is for (the invitation page shows it before sign-up or sign-in). */
export async function lookUpInvitation({ ctx, input }: Call<{ token: string }, { db: Database }>) {
  const found = await statements.findOpenInvitation(ctx.db, sha256Hex(input.token));
  if (!found) throw notFound("open invitation");
  return found;
}

/** What accepting an invitation runs with: no caller yet (the person is not a member), the rooms to tell. */
export type AcceptContext = Pick<ServiceContext, "db" | "rooms" | "defer"> & { request: AuditRequest };

/**
 * A signed-in person accepts an invitation to their address; the session switches to it. The
 * person it linked or made (personnel.updated or .created) goes to the room after the answer, as
 * every record write's event does.
 */
export async function acceptInvitation({ ctx, input }: Call<{ token: string; userId: string; sessionToken: string }, AcceptContext>) {
  const accepted = await statements.acceptInvitation(
    ctx.db,
    { tokenHash: sha256Hex(input.token), userId: input.userId, sessionToken: input.sessionToken },
    ctx.request,
  );
  if (!accepted) throw notFound("open invitation for your address");
  publishAfterCommit(ctx, { event: accepted.linked });
  return accepted;
}
