import { createMiddleware } from "hono/factory";
import { settingsOf, type AppEnv } from "../env.ts";

/**
 * One structured line per request when LOG_REQUESTS=true. Never headers or bodies: they carry keys
 * and data. Off by default: the platform records every invocation itself (Workers Logs), and under
 * `wrangler dev` each line is relayed to the dev process, which cost more CPU than the rest of a
 * 404 (bench/results/README.md "CPU per call"). Errors are logged whatever the setting (functions/http/errors.ts).
 */
export const logRequests = createMiddleware<AppEnv>(async (c, next) => {
  if (!settingsOf(c.env).logRequests) return next();
  const started = Date.now();
  await next();
  console.log(
    JSON.stringify({
      requestId: c.get("requestId"),
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status: c.res.status,
      ms: Date.now() - started,
      queries: c.get("db")?.queryCount ?? 0,
    }),
  );
});
