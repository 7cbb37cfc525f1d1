import { createMiddleware } from "hono/factory";
import { databaseFor } from "../lib/database.ts";
import type { AppEnv } from "../env.ts";

/**
 * A database handle per request: it counts the request's statements (the log line, and the
 * refusal order in app.ts). It holds no connection (each statement is one HTTP request, see
 * db/client.ts), so routes that never query cost nothing; closing it after the response is kept
 * for drivers that do hold one.
 */
export const database = createMiddleware<AppEnv>(async (c, next) => {
  const db = databaseFor(c.env);
  c.set("db", db);
  try {
    await next();
  } finally {
    c.executionCtx.waitUntil(db.close().catch(() => {}));
  }
});
