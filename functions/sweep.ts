import { sweep } from "../services/events.ts";
import { deliverMail } from "../services/mail.ts";
import { backgroundContext } from "./http/context.ts";
import { settingsOf, type Bindings } from "./env.ts";

/** The cron trigger's sweep (functions/index.ts), loaded when a sweep first runs. */
export async function runSweep(env: Bindings, ctx: ExecutionContext): Promise<void> {
  const background = backgroundContext(env, ctx);
  const result = await sweep(background, {
    retentionSeconds: settingsOf(env).events.retentionSeconds,
    auditRetentionSeconds: settingsOf(env).audit.retentionSeconds,
  });
  // The mail due: queued by requests whose own sending failed, or waiting out a refusal's backoff.
  const mail = await deliverMail({ db: background.db, mailer: background.mailer ?? null }).catch((error: unknown) => {
    console.warn(JSON.stringify({ level: "warn", message: "sweep could not send the mail due", cause: String(error) }));
    return { sent: 0, refused: 0 };
  });
  console.log(JSON.stringify({ message: "sweep", ...result, mailSent: mail.sent, mailRefused: mail.refused }));
}
