import type { Resource } from "../db/statements/engine/resource.ts";
import { MANAGE_SETTINGS } from "../db/statements/engine/settings-caller.ts";
import * as statements from "../db/statements/personnel-links.ts";
import { NO_REQUEST } from "../domain/audit.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { ME } from "../domain/resources.ts";
import type { Call, ServiceContext } from "./context.ts";
import { publishAfterCommit } from "./rooms.ts";
import { settleCaller } from "./settle.ts";

// A member is a person (docs/people.md "Members and personnel"): owners and admins link a member
// to the personnel record tasks are assigned to, or unlink them. The change is the person's
// (personnel.updated with changes.userId), published like every record write.

/** Links the member to the person (personnelId), or unlinks them (null); answers the person's id. */
export async function linkMember({ ctx, input }: Call<{ userId: string; personnelId: string | null }>) {
  const outcome = await statements.linkMember(ctx.db, ctx.actor, input.userId, input.personnelId, ctx.request ?? NO_REQUEST);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (!outcome.memberFound) throw notFound("member");
  // Unlinking a member linked to no one changes nothing.
  if (input.personnelId === null && !outcome.before) return { personnelId: null, event: null };
  if (!outcome.before) {
    throw new DomainError("invalid_reference", "personnelId names no person of the organisation", { field: "personnelId" });
  }
  if (outcome.personTaken) {
    throw new DomainError("conflict", "the person is linked to another member: unlink them first", { field: "personnelId" });
  }
  if (outcome.memberTaken) {
    throw new DomainError("conflict", "the member is linked to another person: unlink them first (personnelId: null)", {
      field: "personnelId",
    });
  }
  if (outcome.updated?.event) {
    ctx.observe?.(outcome.updated.event.changeVersion);
    publishAfterCommit(ctx, outcome.updated);
  }
  return { personnelId: input.personnelId, event: outcome.updated?.event ?? null };
}

/**
 * The list filters with `me` (a `person` filter's value, domain/resources.ts) replaced by the id of
 * the caller's own person: refused for a caller who is no member (an API key), or one linked to no
 * person. Filters without `me` are answered as they are, with no statement.
 */
export async function resolveMe<Filters>(ctx: ServiceContext, resource: Resource, filters: Filters): Promise<Filters> {
  const values = filters as Record<string, unknown>;
  const mine = Object.entries(resource.declaration.filters).flatMap(([name, filter]) =>
    filter.kind === "person" && values[name] === ME ? [name] : [],
  );
  const field = mine[0];
  if (field === undefined) return filters;
  const found = await statements.callerPerson(ctx.db, ctx.actor, resource.readScope);
  settleCaller(found.caller, ctx, resource.readScope);
  if (!found.userId) {
    throw new DomainError(
      "invalid_field",
      `${field}=me names the person a signed-in member is, and an API key is no one: name the person by id`,
      {
        field,
      },
    );
  }
  if (!found.personnelId) {
    throw new DomainError(
      "invalid_field",
      `${field}=me: you are linked to no person of the organisation; an owner or admin links you (PUT /v1/settings/members/{userId}/personnel)`,
      { field },
    );
  }
  return { ...filters, ...Object.fromEntries(mine.map((name) => [name, found.personnelId])) };
}
