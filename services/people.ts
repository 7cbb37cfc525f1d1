import type { Database } from "../db/client.ts";
import * as keyStatements from "../db/statements/api-keys.ts";
import * as invitations from "../db/statements/invitations.ts";
import * as members from "../db/statements/members.ts";
import * as sessions from "../db/statements/sessions.ts";
import * as users from "../db/statements/users.ts";
import { generateApiKey } from "../domain/crypto/api-keys.ts";
import { sha256Hex } from "../domain/crypto/hash.ts";
import { generatePassword, hashPassword } from "../domain/crypto/passwords.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import { SETTINGS_ROLES, type Role } from "../domain/roles.ts";
import { expandScopes, type Scope } from "../domain/scopes.ts";
import { newApiKey } from "./api-keys.ts";
import type { Call, ServiceContext } from "./context.ts";
import type { Rooms } from "./rooms.ts";
import { settleCaller } from "./settle.ts";

// People and the settings area (docs/people.md): who is signed in, the members of an
// organisation and their roles, invitations, and the API keys people create, see once, revoke and
// replace. Each verb is one statement that checks the caller's session and role itself.

export type { ApiKeyRecord } from "../db/statements/api-keys.ts";
export type { Invitation } from "../db/statements/invitations.ts";
export type { Member } from "../db/statements/members.ts";
export type { Me } from "../db/statements/sessions.ts";

/** How long an invitation link stays valid. */
export const INVITATION_DAYS = 7;

const MANAGE = { roles: SETTINGS_ROLES };

export async function describeSession({ ctx }: Call<Record<string, never>>) {
  const outcome = await sessions.describeSession(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, null);
  return outcome.me!;
}

/** A signed-in session by id, with its organisation and its role's scopes (a realtime token names one), or null. */
export const findLiveSession = ({ ctx, input }: Call<{ sessionId: string }, { db: Database }>) => sessions.findLiveSession(ctx.db, input.sessionId);

/** Who a session's calls are counted as (the rate limit): its person and the organisation it acts for, or null once it has ended. */
export const sessionHolder = ({ ctx, input }: Call<{ sessionToken: string }, { db: Database }>) => sessions.sessionHolder(ctx.db, input.sessionToken);

/** Switches the session to another organisation the person belongs to. */
export async function switchOrganisation({ ctx, input }: Call<{ sessionToken: string; orgId: string }>) {
  if (await sessions.switchOrganisation(ctx.db, input)) return;
  // An ended session (or one whose person belongs nowhere now) is 401, as on every other call.
  settleCaller((await sessions.describeSession(ctx.db, ctx.actor)).caller, ctx, null);
  throw notFound("organisation");
}

// ---------------------------------------------------------------------------------------------
// Members

export async function listMembers({ ctx }: Call<Record<string, never>>) {
  const outcome = await members.listMembers(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, null);
  return outcome.members;
}

/** Changes a member's role (owners and admins; only an owner makes or unmakes an owner). */
export const changeMemberRole = ({ ctx, input }: Call<{ userId: string; role: Role }>) => changeMember(ctx, input.userId, input.role);

/** Removes a member (owners and admins), or the caller leaves. The last owner cannot go. */
export const removeMember = ({ ctx, input }: Call<{ userId: string }>) => changeMember(ctx, input.userId, null);

async function changeMember(ctx: ServiceContext, userId: string, role: Role | null) {
  const outcome = await members.changeMember(ctx.db, ctx.actor, userId, role);
  settleCaller(outcome.caller, ctx, null);
  // The role is checked before the member's existence, as everywhere: who may ask comes first.
  if (!outcome.permitted) {
    const manages = outcome.role !== null && SETTINGS_ROLES.includes(outcome.role);
    throw manages
      ? new DomainError("insufficient_role", "only an owner makes, changes or removes an owner", { roles: ["owner"] })
      : new DomainError("insufficient_role", "only owners and admins change or remove other members", { roles: [...SETTINGS_ROLES] });
  }
  if (!outcome.found) throw notFound("member");
  if (!outcome.keepsOwner) throw new DomainError("conflict", "an organisation keeps at least one owner: make another member owner first");
  // Their sockets close: a member who stays reconnects with the scopes of the new role.
  const orgId = outcome.orgId!;
  ctx.defer(() => ctx.rooms.tell(orgId, { membersChanged: [userId] }));
  return outcome.member!;
}

// ---------------------------------------------------------------------------------------------
// Invitations

export async function listInvitations({ ctx }: Call<Record<string, never>>) {
  const outcome = await invitations.listInvitations(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, MANAGE);
  return outcome.invitations;
}

/**
 * Invites an address with a role. The answer carries the one-time token of the link, shown once
 * (only its hash is kept); sending it by email is a later concern (`deliverInvitation` is the seam).
 */
export async function createInvitation({ ctx, input }: Call<{ email: string; role: Role }>) {
  const token = generateApiKey().slice(4);
  const email = input.email.trim().toLowerCase();
  let outcome;
  try {
    outcome = await invitations.createInvitation(ctx.db, ctx.actor, { id: uuidv7(), email, role: input.role, tokenHash: sha256Hex(token), expiresInDays: INVITATION_DAYS });
  } catch (error) {
    if ((error as { constraint?: string }).constraint === "invitations_open_email_key") {
      throw new DomainError("conflict", `${email} already has an open invitation: revoke it to send a new one`, { field: "email" });
    }
    throw error;
  }
  settleCaller(outcome.caller, ctx, MANAGE);
  if (!outcome.permitted) throw new DomainError("insufficient_role", "only an owner invites an owner", { roles: ["owner"], field: "role" });
  if (outcome.alreadyMember) throw new DomainError("conflict", `${email} is already a member`, { field: "email" });
  return { invitation: outcome.invitation!, token };
}

export async function revokeInvitation({ ctx, input }: Call<{ invitationId: string }>) {
  const outcome = await invitations.revokeInvitation(ctx.db, ctx.actor, input.invitationId);
  settleCaller(outcome.caller, ctx, MANAGE);
  if (!outcome.revoked) throw notFound("open invitation");
}

/** Whom an invitation link is for (the invitation page shows it before sign-up or sign-in). */
export async function lookUpInvitation({ ctx, input }: Call<{ token: string }, { db: Database }>) {
  const found = await invitations.findOpenInvitation(ctx.db, sha256Hex(input.token));
  if (!found) throw notFound("open invitation");
  return found;
}

/** A signed-in person accepts an invitation to their address; the session switches to it. */
export async function acceptInvitation({ ctx, input }: Call<{ token: string; userId: string; sessionToken: string }, { db: Database }>) {
  const accepted = await invitations.acceptInvitation(ctx.db, { tokenHash: sha256Hex(input.token), userId: input.userId, sessionToken: input.sessionToken });
  if (!accepted) throw notFound("open invitation for your address");
  return accepted;
}

// ---------------------------------------------------------------------------------------------
// Sign-up and sign-in (better-auth's hooks, functions/auth/auth.ts)

/** Why a sign-up is refused (null: it may go ahead): sign-up is closed and no invitation is for the address. */
export async function checkSignUp(ctx: { db: Database; signup: boolean }, input: { email: string; invitation?: string | undefined }): Promise<string | null> {
  if (input.invitation) {
    const found = await invitations.findOpenInvitation(ctx.db, sha256Hex(input.invitation));
    if (!found) return "the invitation is unknown, used, revoked or expired";
    if (found.email !== input.email.toLowerCase()) return "the invitation is for another address";
    return null;
  }
  return ctx.signup ? null : "sign-up is closed on this deployment: ask an owner or admin for an invitation";
}

/** After sign-up: join by the invitation, or own a new organisation. */
export async function welcomeNewUser(
  ctx: { db: Database },
  input: { userId: string; email: string; name: string; invitation?: string | undefined; organisationName?: string | undefined },
): Promise<void> {
  if (input.invitation) {
    await invitations.acceptInvitation(ctx.db, { tokenHash: sha256Hex(input.invitation), userId: input.userId });
    return;
  }
  const name = (input.organisationName ?? `${input.name}'s organisation`).slice(0, 200);
  await users.createOrganisationWithOwner(ctx.db, { orgId: uuidv7(), name, userId: input.userId });
}

/** After sign-out: the rooms of the person's organisations close the sockets of that session. */
export async function endSession(ctx: { db: Database; rooms: Rooms }, input: { sessionId: string; userId: string }): Promise<void> {
  const orgIds = await members.organisationsOf(ctx.db, input.userId);
  await Promise.all(orgIds.map((orgId) => ctx.rooms.tell(orgId, { sessionsEnded: [input.sessionId] })));
}

/** `opsroom user create`: a person with a password credential and a role; the password is generated unless given. */
export async function createUser({
  ctx,
  input,
}: Call<{ orgId: string; email: string; name: string; role: Role; password?: string | undefined; userId?: string | undefined }, { db: Database }>) {
  const password = input.password ?? generatePassword();
  const userId = input.userId ?? uuidv7();
  const email = input.email.trim().toLowerCase();
  const result = await users.insertUser(ctx.db, { userId, accountId: uuidv7(), orgId: input.orgId, name: input.name, email, passwordHash: await hashPassword(password), role: input.role });
  if (!result.orgFound) throw new DomainError("not_found", "organisation not found", { field: "orgId" });
  if (!result.created) throw new DomainError("conflict", `a user with the address ${email} exists already`, { field: "email" });
  return { userId, email, name: input.name, role: input.role, orgId: input.orgId, password, generated: input.password === undefined };
}

// ---------------------------------------------------------------------------------------------
// API keys

export async function listKeys({ ctx }: Call<Record<string, never>>) {
  const outcome = await keyStatements.listOrganisationKeys(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, MANAGE);
  return outcome.keys;
}

/** A key named for its application, with the chosen scopes (a .manage scope brings its .read). The key is answered once. */
export async function createKey({ ctx, input }: Call<{ name: string; scopes: Scope[]; rateLimit?: number | undefined }>) {
  const { key, ...stored } = newApiKey();
  const outcome = await keyStatements.createOrganisationKey(ctx.db, ctx.actor, { ...stored, name: input.name, scopes: expandScopes(input.scopes), rateLimit: input.rateLimit });
  settleCaller(outcome.caller, ctx, MANAGE);
  return { ...outcome.key!, key };
}

/** Revokes a key: 401 at once over HTTP; its room closes its sockets (after the answer). */
export async function revokeKey({ ctx, input }: Call<{ keyId: string }>) {
  const outcome = await keyStatements.revokeOrganisationKey(ctx.db, ctx.actor, input.keyId);
  settleCaller(outcome.caller, ctx, MANAGE);
  if (!outcome.revoked) throw notFound("API key");
  const { orgId, id } = outcome.revoked;
  ctx.defer(() => ctx.rooms.tell(orgId, { keysRevoked: [id] }));
}

/** A new key with the old one's name, scopes and rate limit, and the old one revoked, in one statement. */
export async function replaceKey({ ctx, input }: Call<{ keyId: string }>) {
  const { key, ...stored } = newApiKey();
  const outcome = await keyStatements.replaceOrganisationKey(ctx.db, ctx.actor, input.keyId, stored);
  settleCaller(outcome.caller, ctx, MANAGE);
  if (!outcome.key || !outcome.orgId) throw notFound("API key");
  const orgId = outcome.orgId;
  ctx.defer(() => ctx.rooms.tell(orgId, { keysRevoked: [input.keyId] }));
  return { ...outcome.key, key, replaces: input.keyId };
}
