import { removeObjects } from "../services/attachments.ts";
import { sweep } from "../services/events.ts";
import { backgroundContext } from "./http/context.ts";
import { settingsOf, type Bindings } from "./env.ts";

/**
 * The cron trigger's sweep (functions/index.ts), loaded when a sweep first runs: the outbox's, and
 * the files of deleted attachments still in R2 (docs/attachments.md), retried each run until gone.
 */
export async function runSweep(env: Bindings, ctx: ExecutionContext): Promise<void> {
  const context = backgroundContext(env, ctx);
  const [result, filesRemoved] = await Promise.all([
    sweep(context, {
      retentionSeconds: settingsOf(env).events.retentionSeconds,
      auditRetentionSeconds: settingsOf(env).audit.retentionSeconds,
    }),
    env.FILES ? removeObjects(context, env.FILES, 1000) : 0,
  ]);
  console.log(JSON.stringify({ message: "sweep", ...result, filesRemoved }));
}
