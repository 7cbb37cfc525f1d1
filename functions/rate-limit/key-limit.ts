import { rateLimitOf } from "../../services/api-keys.ts";
import type { Bindings } from "../env.ts";
import { databaseFor } from "../http/context.ts";

/** A key's own limit, from the database (RateLimiter, which loads this module when it first needs it). */
export function keyLimitOf(env: Bindings, keyHash: string): Promise<number | null> {
  return rateLimitOf({ ctx: { db: databaseFor(env) }, input: { keyHash } });
}
