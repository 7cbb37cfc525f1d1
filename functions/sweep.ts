import { removeObjects } from "../services/attachments.ts";
import { sweep } from "../services/events.ts";
import { deliverMail } from "../services/mail.ts";
import { notificationSweep } from "../services/notifications.ts";
import { backgroundContext } from "./http/context.ts";
import { settingsOf, type Bindings } from "./env.ts";

/**
 * The cron trigger's sweep (functions/index.ts), loaded when a sweep first runs: the outbox's, and
 * the files of deleted attachments still in R2 (docs/attachments.md), retried each run until gone.
 */
export async function runSweep(env: Bindings, ctx: ExecutionContext): Promise<void> {
  const background = backgroundContext(env, ctx);
  const [result, filesRemoved] = await Promise.all([
    sweep(background, {
      retentionSeconds: settingsOf(env).events.retentionSeconds,
      auditRetentionSeconds: settingsOf(env).audit.retentionSeconds,
    }),
    env.FILES ? removeObjects(background, env.FILES, 1000) : 0,
  ]);
  // Notifications no request finished (docs/notifications.md), and the digests due: before the mail, which sends theirs.
  const notified = await notificationSweep(background).catch((error: unknown) => {
    console.warn(JSON.stringify({ level: "warn", message: "sweep could not notify", cause: String(error) }));
    return null;
  });
  // The mail due: queued by requests whose own sending failed, or waiting out a refusal's backoff.
  const mail = await deliverMail({ db: background.db, mailer: background.mailer ?? null }).catch((error: unknown) => {
    console.warn(JSON.stringify({ level: "warn", message: "sweep could not send the mail due", cause: String(error) }));
    return { sent: 0, refused: 0 };
  });
  console.log(JSON.stringify({ message: "sweep", ...result, filesRemoved, notified, mailSent: mail.sent, mailRefused: mail.refused }));
}
