import { createApp } from "./app.ts";
import { settingsOf, type Bindings } from "./env.ts";
import { countSubrequests } from "./subrequests.ts";
import { noteRequest } from "./sweep-watch.ts";

// The Worker: the Hono app serves /v1; the cron triggers run the sweep (re-publishes events no
// room acknowledged, repeats recent revocations to the rooms) each minute and the prunes (events
// and audit entries past their retention) every 6 hours, each only when there is something to do
// (functions/sweep-watch.ts).
//
// Start-up builds only what every request passes through: Hono, the common middleware, and each
// route mounted by its method, path, scope and body (routes/manifest.ts). What a request needs
// beyond that is loaded by the first request that needs it, and then kept by the isolate: a
// route's module (its schemas, its service, its statements) with that route, zod with the first
// validation, the database driver with the first statement, better-auth with /auth, the OAuth
// server with /oauth, the room's endpoints with /internal, MCP with /mcp, the OpenAPI builder and
// Scalar with their pages, the sweep with the cron (docs/deployment.md "Start-up").
export { AuthGuard } from "./rate-limit/auth-guard.ts";
export { RateLimiter } from "./rate-limit/limiter.ts";
export { SweepWatch } from "./sweep-watch.ts";

const app = createApp();

/** Each invocation's subrequests counted (functions/subrequests.ts); a misconfigured Worker's first request says why. */
function counted<T>(env: Bindings, work: () => T): T {
  let limits;
  try {
    limits = settingsOf(env).limits;
  } catch {
    return work();
  }
  return countSubrequests(limits.subrequests, limits.model, work);
}

export default {
  fetch(request, env, ctx) {
    // A request keeps the cron's sweeps going a few minutes; without any they send Neon nothing (functions/sweep-watch.ts).
    noteRequest(env, ctx);
    return counted(env, () => app.fetch(request, env, ctx));
  },
  scheduled(controller, env, ctx) {
    ctx.waitUntil(counted(env, () => import("./sweep.ts").then(({ runScheduled }) => runScheduled(controller.cron, env, ctx))));
  },
} satisfies ExportedHandler<Bindings>;
