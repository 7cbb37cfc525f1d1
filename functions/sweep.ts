import { sweep } from "../services/events.ts";
import { backgroundContext } from "./http/context.ts";
import { settingsOf, type Bindings } from "./env.ts";

/** The cron trigger's sweep (functions/index.ts), loaded when a sweep first runs. */
export async function runSweep(env: Bindings, ctx: ExecutionContext): Promise<void> {
  const result = await sweep(backgroundContext(env, ctx), {
    retentionSeconds: settingsOf(env).events.retentionSeconds,
    auditRetentionSeconds: settingsOf(env).audit.retentionSeconds,
  });
  console.log(JSON.stringify({ message: "sweep", ...result }));
}
