import { createMiddleware } from "hono/factory";
import { hashApiKey, isWellFormedApiKey } from "../lib/api-keys.ts";
import { ApiError } from "../errors.ts";
import type { AppEnv } from "../env.ts";

/**
 * Reads `Authorization: Bearer <key>`. A missing or malformed key is refused here without a
 * database round trip; a well-formed one becomes the actor (its hash) that the route's single
 * statement checks against api_keys.
 */
export const bearer = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  if (!header) {
    throw new ApiError("unauthorized", "send your API key as Authorization: Bearer <key>");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError("unauthorized", "the Authorization header must be: Bearer <key>");
  const key = match[1]!;
  if (!isWellFormedApiKey(key)) throw new ApiError("invalid_key", "the API key is malformed");
  c.set("actor", { keyHash: await hashApiKey(key) });
  await next();
});
