import type { Context } from "hono";
import { describeCaller } from "../../db/queries/organisation.ts";
import type { ApiError } from "../errors.ts";
import type { AppEnv } from "../env.ts";

/**
 * Refuses a request for a problem found before the database was asked (a bad body, query or
 * path): 401 and 403 come first (SPEC order of checks), so the key and scope are checked now,
 * and only a caller who may make the call learns what is wrong with it.
 */
export async function refuse(c: Context<AppEnv>, error: ApiError): Promise<never> {
  if (c.var.actor) await describeCaller(c.var.db, c.var.actor, c.var.scope);
  throw error;
}
