import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env.ts";

/** One structured line per request. Never headers or bodies: they carry keys and data. */
export const logRequests = createMiddleware<AppEnv>(async (c, next) => {
  const started = Date.now();
  await next();
  console.log(
    JSON.stringify({
      requestId: c.var.requestId,
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status: c.res.status,
      ms: Date.now() - started,
      queries: c.var.db?.queryCount ?? 0,
    }),
  );
});
