import type * as Party from "partykit/server";
import type { OpsEvent } from "../../domain/events.ts";
import { writeAtomically } from "../storage.ts";
import { gone, nextRetryAt, reportOf, send } from "./delivery.ts";
import { DueJobs, firstDue, jobKey, newJob, slots, type Job } from "./queue.ts";
import { flushReports, hasReports, reportKey } from "./reports.ts";
import { Targets, wants, type InternalApi } from "./targets.ts";

// Webhook delivery from the organisation's room. Every event the room delivers becomes one job per
// webhook that wants it (queue.ts), drained by the room's alarm: each attempt (delivery.ts) is
// recorded with the job's next state in one storage batch, and reported to the API, which keeps
// the delivery log (reports.ts).

/**
 * Jobs read per drain (shared between the webhooks), and how long a drain keeps taking new ones:
 * the alarm comes straight back for the rest, having fanned out what was published meanwhile. (A
 * stalled receiver's queue would otherwise keep one drain, and every newer event, waiting.) A drain
 * ends once its last request is answered, so an event published meanwhile waits at most this budget
 * plus one request timeout (5 + 10 s) before it is fanned out to the webhooks that answer.
 */
const DRAIN_BATCH = 1_000;
const DRAIN_BUDGET_MS = 5_000;
/** Requests in flight per organisation. */
const CONCURRENCY = 16;
/** Jobs created per fan-out batch: events per batch shrink as the webhooks that want them grow. */
const FANOUT_JOB_BUDGET = 500;
/** How soon attempt reports the API did not take are sent again. */
const REPORT_RETRY_MS = 5_000;

export class WebhookDispatcher {
  private readonly targets: Targets;

  constructor(
    private readonly storage: Party.Storage,
    private readonly api: InternalApi,
  ) {
    this.targets = new Targets(storage, api);
  }

  /** Fetches the organisation's webhooks again (after the API says they changed). */
  reload(): Promise<void> {
    return this.targets.reload();
  }

  /** How many events to turn into jobs at once, so that a batch holds about FANOUT_JOB_BUDGET jobs. */
  async fanoutBatchSize(): Promise<number> {
    const live = (await this.targets.all()).filter((t) => t.enabled).length;
    return Math.max(1, Math.floor(FANOUT_JOB_BUDGET / Math.max(1, live)));
  }

  /**
   * The jobs for the events, one per webhook that wants each, as storage entries: the caller
   * stores them in the same batch as it records the events handed over.
   */
  async jobsFor(events: OpsEvent[]): Promise<Record<string, Job>> {
    const targets = await this.targets.all();
    return Object.fromEntries(events.flatMap((event) => targets.filter((t) => wants(t, event)).map((t) => newJob(t.id, event))));
  }

  /**
   * Queues events for one webhook as they are, whatever its filters (test deliveries,
   * redeliveries, replays the API has filtered); answers whether they were queued.
   */
  async enqueueFor(webhookId: string, events: OpsEvent[]): Promise<boolean> {
    // The API checked that the webhook exists and is on: a room whose copy says otherwise missed
    // a change, so it loads them again first (the drain reads only the queues of live webhooks).
    await this.targets.all();
    if (!this.targets.isLive(webhookId)) await this.targets.reload();
    if (!this.targets.isLive(webhookId)) return false;
    await writeAtomically(this.storage, { put: Object.fromEntries(events.map((event) => newJob(webhookId, event))) });
    return true;
  }

  /** When there is work next: now if attempt reports wait to be sent, else when the next queued job falls due, or null. */
  async nextDue(): Promise<number | null> {
    if (await hasReports(this.storage)) return Date.now();
    return firstDue(this.storage, (await this.targets.live()).map((t) => t.id));
  }

  /**
   * Delivers the jobs that fall due, for up to DRAIN_BUDGET_MS; answers when the next one falls
   * due, or null.
   */
  async drain(): Promise<number | null> {
    await flushReports(this.storage, this.api);
    const live = (await this.targets.all()).filter((t) => t.enabled);
    // Each webhook's due jobs, read a page at a time with its own share of the batch.
    const pageSize = Math.max(CONCURRENCY, Math.floor(DRAIN_BATCH / Math.max(1, live.length)));
    const queues = live.map((t) => new DueJobs(this.storage, t.id, pageSize, t.ordered));
    const waiting = (await Promise.all(queues.map(async (queue) => ((await queue.hasAny()) ? queue : null)))).filter((q) => q !== null);
    // CONCURRENCY requests in flight, split equally between the webhooks with jobs due (at least
    // one lane each): while there are no more than CONCURRENCY of them, every lane has a slot of
    // its own, so a receiver that stalls for the whole timeout holds up only its own deliveries,
    // and the others' lanes go on taking jobs until the round ends. An ordered webhook has one
    // lane, and it stops at a job that is not settled (its retry is queued): the next one waits.
    const withSlot = slots(CONCURRENCY);
    const deadline = Date.now() + DRAIN_BUDGET_MS;
    const share = Math.max(1, Math.floor(CONCURRENCY / Math.max(1, waiting.length)));
    const lanes = waiting.flatMap((queue) => {
      const lane = async () => {
        for (let entry = await queue.take(); entry && Date.now() < deadline; entry = await queue.take()) {
          const [key, job] = entry;
          const settled = await withSlot(() => (Date.now() < deadline ? this.attempt(key, job) : Promise.resolve(false)));
          if (queue.ordered && !settled) return;
        }
      };
      return Array.from({ length: queue.ordered ? 1 : share }, lane);
    });
    // Every lane is waited for, even after one fails: none may still be sending when the next
    // drain starts, or it could send the same job again.
    const failed = (await Promise.allSettled(lanes)).find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    const reported = await flushReports(this.storage, this.api);
    const nextJob = await firstDue(this.storage, (await this.targets.live()).map((t) => t.id));
    // Attempts the API did not take yet are sent again in a while, jobs or no jobs.
    return reported ? nextJob : Math.min(nextJob ?? Infinity, Date.now() + REPORT_RETRY_MS);
  }

  /** One attempt of a job; answers whether the job is settled (delivered, given up, or dropped). */
  private async attempt(key: string, job: Job): Promise<boolean> {
    // Looked up now, not when the drain began: a change the API has answered applies at once.
    const target = this.targets.current(job.webhookId);
    if (!target?.enabled) {
      await this.storage.delete(key);
      return true;
    }
    const answer = await send(target, job);
    // Turned off or removed while the request was out: no next attempt.
    const retryAt = this.targets.isLive(job.webhookId) ? nextRetryAt(job, answer) : null;
    const report = reportOf(job, answer, retryAt);
    // The attempt's report and the job's next state in one batch: a retry is never made twice
    // under one attempt number, nor an attempt left unreported. An ordered webhook's retry keeps
    // its place in line (queue.ts); any other is queued under its due time.
    const retried = retryAt !== null ? { ...job, attempt: job.attempt + 1, dueAt: retryAt } : null;
    const retryKey = retried && (target.ordered ? key : jobKey(retried));
    await writeAtomically(this.storage, {
      put: { [reportKey(report)]: report, ...(retryKey ? { [retryKey]: retried } : {}) },
      delete: retryKey === key ? [] : [key],
    });
    if (gone(answer)) await this.targets.disable(target, "the receiver answered 410 Gone");
    return retried === null;
  }
}
