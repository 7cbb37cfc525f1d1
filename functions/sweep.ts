import { abortAbandonedUploads } from "../services/attachment-uploads.ts";
import { removeObjects } from "../services/attachments.ts";
import { pruneRetained, sweep } from "../services/events.ts";
import { deliverMail, mailDueAt } from "../services/mail.ts";
import { digestDueAt, notificationSweep } from "../services/notifications.ts";
import { settingsOf, type Bindings } from "./env.ts";
import { backgroundContext } from "./http/context.ts";
import { subrequestsLeft } from "./subrequests.ts";
import { PRUNE_CRON, type SweepPlan } from "./sweep-plan.ts";
import { locallyActiveUntil, sweepWatchOf } from "./sweep-watch.ts";

/** The most abandoned uploads one sweep aborts (each an R2 call); the next sweep takes the rest. */
const ABANDONED_PER_SWEEP = 20;

const log = (facts: Record<string, unknown>) => console.log(JSON.stringify(facts));
const warn = (message: string, cause: unknown) => console.warn(JSON.stringify({ level: "warn", message, cause: String(cause) }));

/** What the watch says to do; if it cannot say, everything (an idle database woken beats an event left unpublished). */
async function planned(env: Bindings): Promise<{ plan: SweepPlan; watch: ReturnType<typeof sweepWatchOf> | null }> {
  const watch = sweepWatchOf(env);
  try {
    return { plan: await watch.plan(locallyActiveUntil()), watch };
  } catch (error) {
    warn("the sweep watch did not answer: sweeping anyway", error);
    return { plan: { sweep: true, prune: true }, watch: null };
  }
}

/**
 * The cron trigger's run (functions/index.ts), loaded when one first runs: the minute sweep, or on
 * PRUNE_CRON the prunes; each only when the watch says there is something to do
 * (functions/sweep-watch.ts), so an idle service sends Neon no statement.
 */
export async function runScheduled(cron: string, env: Bindings, ctx: ExecutionContext): Promise<void> {
  const { plan, watch } = await planned(env);
  if (cron === PRUNE_CRON) {
    if (!plan.prune) return log({ message: "prune", idle: true });
    const settings = settingsOf(env);
    const result = await pruneRetained(backgroundContext(env, ctx), {
      retentionSeconds: settings.events.retentionSeconds,
      auditRetentionSeconds: settings.audit.retentionSeconds,
    });
    // A prune that failed is tried again at the next prune time.
    if (result.troubles === 0) await watch?.pruned().catch((error: unknown) => warn("could not tell the sweep watch of the prunes", error));
    return log({ message: "prune", ...result });
  }
  if (!plan.sweep) return log({ message: "sweep", idle: true });
  const outcome = await runSweep(env, ctx);
  await watch?.swept(outcome).catch((error: unknown) => warn("could not tell the sweep watch of the sweep", error));
}

/**
 * The minute sweep: the outbox's, the files of deleted attachments still in R2 (docs/attachments.md),
 * retried each run until gone, and the mail due. Answers whether the next sweeps must go on
 * (anything done or failed) and when mail is next due.
 */
async function runSweep(env: Bindings, ctx: ExecutionContext): Promise<{ busy: boolean; wakeAt: number | null }> {
  const background = backgroundContext(env, ctx);
  let troubles = 0;
  const [result, filesRemoved] = await Promise.all([
    sweep(background, {}),
    env.FILES
      ? removeObjects(background, env.FILES, 1000).catch((error: unknown) => {
          troubles++;
          warn("sweep could not remove the files of deleted attachments", error);
          return 0;
        })
      : 0,
  ]);
  // Notifications no request finished (docs/notifications.md), and the digests due: before the mail, which sends theirs.
  const notified = await notificationSweep(background).catch((error: unknown) => {
    warn("sweep could not notify", error);
    return null;
  });
  // The mail due: queued by requests whose own sending failed, or waiting out a refusal's backoff.
  const mail = await deliverMail({ db: background.db, mailer: background.mailer ?? null }).catch((error: unknown) => {
    troubles++;
    warn("sweep could not send the mail due", error);
    return { sent: 0, refused: 0 };
  });
  // Multipart uploads untouched 24 hours (docs/attachments.md "Large files"): one statement, then an
  // abort in R2 each, within what the invocation's subrequests leave (a few kept for the reads below).
  const uploadsAborted = env.FILES
    ? await abortAbandonedUploads(background, env.FILES, Math.min(ABANDONED_PER_SWEEP, subrequestsLeft() - 4)).catch((error: unknown) => {
        troubles++;
        warn("sweep could not abort abandoned uploads", error);
        return 0;
      })
    : 0;
  // Without a mailer nothing can be sent: no wake-up for it (setting MAIL_URL is a deploy, and requests follow).
  const dueAt = (what: string, read: () => Promise<number | null>) =>
    background.mailer
      ? read().catch((error: unknown) => {
          troubles++;
          warn(`sweep could not read when ${what} is next due`, error);
          return null;
        })
      : null;
  // The next mail's time, or the next morning's digests: an idle service is woken for either. The two reads are independent.
  const wakes = await Promise.all([dueAt("mail", () => mailDueAt(background)), dueAt("a digest", () => digestDueAt(background))]);
  const times = wakes.filter((at): at is number => at !== null);
  const wakeAt = times.length ? Math.min(...times) : null;
  log({
    message: "sweep",
    ...result,
    troubles: troubles + result.troubles,
    filesRemoved,
    uploadsAborted,
    notified,
    mailSent: mail.sent,
    mailRefused: mail.refused,
  });
  // Without a room configured no event can be published until a deploy sets one (and requests
  // follow): the outbox's failures then keep no sweeps going, or they would never let Neon suspend.
  const outboxBusy = settingsOf(env).realtime !== null && (result.published > 0 || result.failed > 0 || result.troubles > 0);
  const notifying = notified === null || Object.values(notified).some((count) => count > 0);
  const busy = outboxBusy || notifying || troubles > 0 || filesRemoved > 0 || uploadsAborted > 0 || mail.sent > 0 || mail.refused > 0;
  return { busy, wakeAt };
}
