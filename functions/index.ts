import { sweep } from "../services/events.ts";
import { createApp } from "./app.ts";
import { backgroundContext } from "./http/context.ts";
import { settingsOf, type Bindings } from "./env.ts";

// The Worker: the Hono app serves /v1; the cron trigger runs the sweep (re-publishes events no
// room acknowledged, repeats recent revocations to the rooms, drops events and audit entries past their retention).
export { AuthGuard } from "./rate-limit/auth-guard.ts";
export { RateLimiter } from "./rate-limit/limiter.ts";
const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(
      sweep(backgroundContext(env, ctx), {
        retentionSeconds: settingsOf(env).events.retentionSeconds,
        auditRetentionSeconds: settingsOf(env).audit.retentionSeconds,
      }).then((result) => console.log(JSON.stringify({ message: "sweep", ...result }))),
    );
  },
} satisfies ExportedHandler<Bindings>;
