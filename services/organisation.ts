import {
  createOrganisation as createOrganisationStatement,
  describeCaller as describeCallerStatement,
  describeSelf as describeSelfStatement,
  findOrganisation as findOrganisationStatement,
  getOrganisation as getOrganisationStatement,
} from "../db/statements/organisations.ts";
import type { Scope } from "../domain/scopes.ts";
import type { Call, SystemContext } from "./context.ts";
import { settleCaller } from "./settle.ts";

export type { Caller, Organisation, OrganisationRecord } from "../db/statements/organisations.ts";

/**
 * Who is calling: the key's organisation, application, scopes and the organisation's
 * changeVersion (GET /v1). With `scope`, the caller must hold it: the check a request refused
 * before the database was asked still makes, so 401 and 403 come before 400.
 */
export async function describeCaller({ ctx, input }: Call<{ scope?: Scope | null }>) {
  const scope = input.scope ?? null;
  const { caller, self } = await describeCallerStatement(ctx.db, ctx.actor, scope);
  settleCaller(caller, ctx, scope);
  return self!;
}

/** GET /v1: who is calling, with their organisation's file usage and quota (one statement). */
export async function describeSelf({ ctx }: Call<Record<string, never>>) {
  const { caller, self, files } = await describeSelfStatement(ctx.db, ctx.actor);
  settleCaller(caller, ctx, null);
  return { ...self!, attachments: files };
}

export async function getOrganisation({ ctx }: Call<Record<string, never>>) {
  const { caller, organisation } = await getOrganisationStatement(ctx.db, ctx.actor);
  settleCaller(caller, ctx, "organisation.read");
  return organisation!;
}

/** Organisations are made by an operator (the CLI, the seed), outside the API. */
export const createOrganisation = ({ ctx, input }: Call<{ name: string }, Pick<SystemContext, "db">>) =>
  createOrganisationStatement(ctx.db, input);

export const findOrganisation = ({ ctx, input }: Call<{ orgId: string }, Pick<SystemContext, "db">>) =>
  findOrganisationStatement(ctx.db, input.orgId);
