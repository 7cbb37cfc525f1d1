import type { Context } from "hono";
import type { DomainError } from "../../domain/errors.ts";
import type { AppEnv } from "../env.ts";
import { serviceContext } from "../http/context.ts";

/**
 * Refuses a request for a problem found before the database was asked (a bad body, query or
 * path): 401 and 403 come first, so the key and scope are checked now, and only a caller who may
 * make the call learns what is wrong with it.
 */
export async function refuse(c: Context<AppEnv>, error: DomainError): Promise<never> {
  if (c.get("actor")) {
    const { describeCaller } = await import("../../services/organisation.ts");
    await describeCaller({ ctx: serviceContext(c), input: { scope: c.get("scope") } });
  }
  throw error;
}
