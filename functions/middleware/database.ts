import { createMiddleware } from "hono/factory";
import { connectDatabase } from "../../db/client.ts";
import type { AppEnv } from "../env.ts";

/**
 * A database handle per request (a Worker may not reuse sockets across requests). The pool only
 * connects on the first query, so routes that never query cost nothing; it is closed after the
 * response, off the response path.
 */
export const database = createMiddleware<AppEnv>(async (c, next) => {
  const db = connectDatabase({ url: c.env.DATABASE_URL, wsProxy: c.env.DB_WS_PROXY });
  c.set("db", db);
  try {
    await next();
  } finally {
    c.executionCtx.waitUntil(db.close().catch(() => {}));
  }
});
