import { createApp } from "./app.ts";
import type { Bindings } from "./env.ts";
import { sweepUnpublished } from "./lib/realtime.ts";

// The Worker: the Hono app serves /v1; the cron trigger re-publishes events no room acknowledged.
export { RateLimiter } from "./rate-limit/limiter.ts";
const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(sweepUnpublished(env).then((result) => console.log(JSON.stringify({ message: "sweep", ...result }))));
  },
} satisfies ExportedHandler<Bindings>;
