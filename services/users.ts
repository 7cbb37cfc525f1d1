import type { Database } from "../db/client.ts";
import { acceptInvitation, findOpenInvitation } from "../db/statements/invitations.ts";
import * as statements from "../db/statements/users.ts";
import { sha256Hex } from "../domain/crypto/hash.ts";
import { generatePassword, hashPassword } from "../domain/crypto/passwords.ts";
import { DomainError } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import type { Role } from "../domain/roles.ts";
import type { Call } from "./context.ts";
import type { AcceptContext } from "./invitations.ts";
import { callerRefusals } from "./refusals.ts";
import { publishAfterCommit } from "./rooms.ts";

// Users: how a person who signs in comes to be. Sign-up goes through better-auth, whose hooks
// (functions/auth/auth.ts) ask here whether it may go ahead and what follows it: joining by an
// invitation, or owning a new organisation. `opsroom user create` makes one from the command line.

/** Why a sign-up is refused (null: it may go ahead): sign-up is closed and no invitation is for the address. */
export async function checkSignUp(
  ctx: { db: Database; signup: boolean },
  input: { email: string; invitation?: string | undefined },
): Promise<string | null> {
  if (input.invitation) {
    const found = await findOpenInvitation(ctx.db, sha256Hex(input.invitation));
    if (!found) return "the invitation is unknown, used, revoked or expired";
    if (found.email !== input.email.toLowerCase()) return "the invitation is for another address";
    return null;
  }
  return ctx.signup ? null : "sign-up is closed on this deployment: ask an owner or admin for an invitation";
}

/** After sign-up: join by the invitation, or own a new organisation. */
/**
 * After sign-up: join by the invitation (recorded as member.joined), or own a new organisation
 * (recorded as user.signed_up, its log's first entry).
 */
export async function welcomeNewUser(
  ctx: AcceptContext,
  input: { userId: string; email: string; name: string; invitation?: string | undefined; organisationName?: string | undefined },
): Promise<void> {
  if (input.invitation) {
    const accepted = await acceptInvitation(ctx.db, { tokenHash: sha256Hex(input.invitation), userId: input.userId }, ctx.request);
    // The person the invitation made or linked goes to the room, as every record write's event does.
    if (accepted) publishAfterCommit(ctx, { event: accepted.linked });
    return;
  }
  const name = (input.organisationName ?? `${input.name}'s organisation`).slice(0, 200);
  await statements.createOrganisationWithOwner(ctx.db, { orgId: uuidv7(), name, userId: input.userId }, ctx.request);
}

/** `opsroom user create`: a person with a password credential and a role; the password is generated unless given. */
export async function createUser({
  ctx,
  input,
}: Call<
  { orgId: string; email: string; name: string; role: Role; password?: string | undefined; userId?: string | undefined },
  { db: Database }
>) {
  const password = input.password ?? generatePassword();
  const userId = input.userId ?? uuidv7();
  const email = input.email.trim().toLowerCase();
  const result = await statements.insertUser(ctx.db, {
    userId,
    accountId: uuidv7(),
    orgId: input.orgId,
    name: input.name,
    email,
    passwordHash: await hashPassword(password),
    role: input.role,
  });
  if (!result.orgFound) throw callerRefusals.organisationUnknown();
  if (!result.created) throw new DomainError("conflict", `a user with the address ${email} exists already`, { field: "email" });
  return { userId, email, name: input.name, role: input.role, orgId: input.orgId, password, generated: input.password === undefined };
}
