import * as statements from "../db/statements/members.ts";
import { NO_REQUEST } from "../domain/audit.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { SETTINGS_ROLES, type Role } from "../domain/roles.ts";
import { tellEnded } from "./applications.ts";
import type { Call, ServiceContext } from "./context.ts";
import { publishAfterCommit } from "./rooms.ts";
import { settleCaller } from "./settle.ts";

// Members (docs/people.md "Roles"): the people of an organisation and their roles. Any member
// lists them and may leave; owners and admins change roles and remove members; only an owner
// touches an owner's seat, and an organisation keeps at least one owner. Removing, or demoting, a
// member ends the installations that rested on them (docs/apps.md "Whose authority an installation
// rests on"). (People as records that tasks are assigned to are personnel: services/personnel.ts.)

export type { Member } from "../db/statements/members.ts";

export async function listMembers({ ctx }: Call<Record<string, never>>) {
  const outcome = await statements.listMembers(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, null);
  return outcome.members;
}

/** Changes a member's role (owners and admins; only an owner makes or unmakes an owner). */
export const changeMemberRole = ({ ctx, input }: Call<{ userId: string; role: Role }>) => changeMember(ctx, input.userId, input.role);

/** Removes a member (owners and admins), or the caller leaves. The last owner cannot go. */
export const removeMember = ({ ctx, input }: Call<{ userId: string }>) => changeMember(ctx, input.userId, null);

async function changeMember(ctx: ServiceContext, userId: string, role: Role | null) {
  const outcome = await statements.changeMember(ctx.db, ctx.actor, userId, role, ctx.request ?? NO_REQUEST);
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
  // Their sockets close: a member who stays reconnects with the scopes of the new role. The
  // installations that rested on them close theirs and stop their webhooks.
  const orgId = outcome.orgId!;
  ctx.defer(() => ctx.rooms.tell(orgId, { membersChanged: [userId] }));
  await tellEnded(ctx, outcome.ended);
  // A member removed is no longer the person they were: that person's personnel.updated.
  publishAfterCommit(ctx, { event: outcome.unlinked });
  return outcome.member!;
}
