import type { Database } from "../../db/client.ts";
import { findOrganisation, type Organisation } from "../../services/organisation.ts";
import { CommandError } from "./errors.ts";

/** The organisation, or the CLI's "no such organisation" failure. */
export async function requireOrganisation(db: Database, orgId: string): Promise<Organisation> {
  const organisation = await findOrganisation({ ctx: { db }, input: { orgId } });
  if (!organisation) throw new CommandError(`no organisation with id ${orgId}`);
  return organisation;
}
