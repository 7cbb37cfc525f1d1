import type * as Party from "partykit/server";
import type { OpsEvent } from "../../domain/events.ts";
import { CONNECTIONS_PER_INVOCATION, heldConnections, queue, type HeldConnections } from "../connections.ts";
import type { QueuedAnswer } from "../protocol.ts";
import { Backlog } from "./backlog.ts";
import { droppedReport, gone, nextRetryAt, reportOf, send } from "./delivery.ts";
import { DueJobs, firstDue, jobKey, newJob, type Job } from "./queue.ts";
import { flushReports, hasReports, REPORT_BATCH, reportKey } from "./reports.ts";
import { Targets, wants, type InternalApi } from "./targets.ts";

// Webhook delivery from the organisation's room. Every event the room delivers becomes one job per
// webhook that wants it (queue.ts), drained by the room's alarm: each attempt (delivery.ts) is
// recorded with the job's next state in one storage batch, and reported to the API, which keeps
// the delivery log (reports.ts). Each webhook's queue is capped (backlog.ts): a test, redelivery
// or replay that would pass the cap is refused whole, and an event past it is dropped for that
// webhook with a report saying so.

/**
 * Jobs read per drain (shared between the webhooks), and how long a drain keeps taking new ones:
 * the alarm comes straight back for the rest, having fanned out what was published meanwhile. (A
 * stalled receiver's queue would otherwise keep one drain, and every newer event, waiting.) A drain
 * ends once its last request is answered, so an event published meanwhile waits at most this budget
 * plus one request timeout (5 + 10 s) before it is fanned out to the webhooks that answer.
 */
const DRAIN_BATCH = 1_000;
const DRAIN_BUDGET_MS = 5_000;
/**
 * Deliveries in flight per organisation: as many as an invocation may have connections waiting for
 * headers (../connections.ts), which they share with the drain's calls to the API.
 */
const CONCURRENCY = CONNECTIONS_PER_INVOCATION;
/** Jobs created per fan-out batch: events per batch shrink as the webhooks that want them grow. */
const FANOUT_JOB_BUDGET = 500;
/** How soon attempt reports the API did not take are sent again. */
const REPORT_RETRY_MS = 5_000;

/**
 * Deliveries a drain may send with `left` subrequests: each is one, and the drain keeps what it may
 * need after them: a call to turn a webhook off for each webhook, and for each of the requests in
 * flight when it answers 410 (webhooks/targets.ts), the reports' flushes (a call per REPORT_BATCH
 * attempts), the webhooks' reload, and one to spare.
 */
export function deliveriesWithin(left: number, webhooks: number): number {
  if (!Number.isFinite(left)) return Infinity;
  return Math.max(0, left - (webhooks + CONCURRENCY + Math.ceil(left / REPORT_BATCH) + 2));
}

export class WebhookDispatcher {
  private readonly targets: Targets;
  private readonly backlog: Backlog;

  /**
   * `connections`: the room's, which its calls to the API (`api`) hold too: the deliveries and
   * those calls together never wait for more headers at once than the platform serves.
   * `targetsMaxAgeMs`: how long the copy of the webhooks is trusted without a notice (targets.ts).
   */
  constructor(
    private readonly storage: Party.Storage,
    private readonly api: InternalApi,
    backlogLimit: number,
    private readonly connections: HeldConnections = heldConnections(fetch),
    targetsMaxAgeMs?: number,
  ) {
    this.backlog = new Backlog(storage, backlogLimit);
    this.targets = new Targets(storage, api, this.backlog, targetsMaxAgeMs);
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
   * Queues a job per webhook that wants each of the `handed` events, and deletes their keys, in one
   * batch: each event becomes its jobs exactly once. A webhook whose backlog is full gets a report
   * that the event was dropped instead of a job. Written without holding back the room's sockets
   * (the caller syncs before the drain sends anything). Answers false, writing nothing, when the
   * webhooks cannot be loaded.
   */
  async queueFor(handed: Map<string, OpsEvent>): Promise<boolean> {
    const targets = await this.targets.all().catch(() => null);
    if (targets === null) return false;
    await this.backlog.ready();
    const put: Record<string, unknown> = {};
    const moved: Record<string, number> = {};
    for (const event of handed.values()) {
      for (const target of targets.filter((t) => wants(t, event))) {
        const [key, job] = newJob(target.id, event);
        const queued = this.backlog.queued(target.id) + (moved[target.id] ?? 0);
        if (queued < this.backlog.limit) {
          put[key] = job;
          moved[target.id] = (moved[target.id] ?? 0) + 1;
        } else {
          const report = droppedReport(job, queued);
          put[reportKey(report)] = report;
        }
      }
    }
    await this.backlog.write({ put, delete: [...handed.keys()] }, moved, { unconfirmed: true });
    return true;
  }

  /**
   * Queues events for one webhook as they are, whatever its filters (test deliveries,
   * redeliveries, replays the API has filtered): all of them, or none if the webhook is off or
   * they would take its backlog past the limit.
   */
  async enqueueFor(webhookId: string, events: OpsEvent[]): Promise<QueuedAnswer> {
    // The API checked that the webhook exists and is on: a room whose copy says otherwise missed
    // a change, so it loads them again first (the drain reads only the queues of live webhooks).
    await this.targets.all();
    if (!this.targets.isLive(webhookId)) await this.targets.reload();
    if (!this.targets.isLive(webhookId)) return { queued: false };
    await this.backlog.ready();
    const backlog = this.backlog.queued(webhookId);
    if (backlog + events.length > this.backlog.limit) return { queued: false, backlog, backlogLimit: this.backlog.limit };
    await this.backlog.write({ put: Object.fromEntries(events.map((event) => newJob(webhookId, event))) }, { [webhookId]: events.length });
    return { queued: true };
  }

  /** When there is work next: now if attempt reports wait to be sent, else when the next queued job falls due, or null. */
  async nextDue(): Promise<number | null> {
    if (await hasReports(this.storage)) return Date.now();
    return firstDue(
      this.storage,
      (await this.targets.live()).map((t) => t.id),
    );
  }

  /**
   * Delivers the jobs that fall due, for up to DRAIN_BUDGET_MS and within the subrequests the
   * invocation has left (`subrequestsLeft`, ../subrequests.ts); answers when the next one falls
   * due (now, when jobs due were left for want of time or subrequests), or null.
   */
  async drain(subrequestsLeft: () => number = () => Infinity): Promise<number | null> {
    await this.backlog.ready();
    await flushReports(this.storage, this.api);
    const live = (await this.targets.all()).filter((t) => t.enabled);
    let sends = deliveriesWithin(subrequestsLeft(), live.length);
    // Each webhook's due jobs, read a page at a time with its own share of the batch.
    const pageSize = Math.max(CONCURRENCY, Math.floor(DRAIN_BATCH / Math.max(1, live.length)));
    const queues = live.map((t) => new DueJobs(this.storage, t.id, pageSize, t.ordered));
    const waiting = (await Promise.all(queues.map(async (queue) => ((await queue.hasAny()) ? queue : null)))).filter((q) => q !== null);
    // CONCURRENCY requests in flight, split equally between the webhooks with jobs due (at least
    // one lane each): while there are no more than CONCURRENCY of them, every lane has a slot of
    // its own, so a receiver that stalls for the whole timeout holds up only its own deliveries,
    // and the others' lanes go on taking jobs until the round ends. An ordered webhook has one
    // lane, and it stops at a job that is not settled (its retry is queued): the next one waits.
    const withSlot = queue(CONCURRENCY);
    const deadline = Date.now() + DRAIN_BUDGET_MS;
    const share = Math.max(1, Math.floor(CONCURRENCY / Math.max(1, waiting.length)));
    const lanes = waiting.flatMap((queue) => {
      const lane = async () => {
        for (let entry = await queue.take(); entry && Date.now() < deadline && sends > 0; entry = await queue.take()) {
          const [key, job] = entry;
          sends--;
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
    const nextJob = await firstDue(
      this.storage,
      (await this.targets.live()).map((t) => t.id),
    );
    // Attempts the API did not take yet are sent again in a while, jobs or no jobs.
    return reported ? nextJob : Math.min(nextJob ?? Infinity, Date.now() + REPORT_RETRY_MS);
  }

  /** One attempt of a job; answers whether the job is settled (delivered, given up, or dropped). */
  private async attempt(key: string, job: Job): Promise<boolean> {
    // Looked up now, not when the drain began: a change the API has answered applies at once.
    const target = this.targets.current(job.webhookId);
    if (!target?.enabled) {
      await this.backlog.write({ delete: [key] }, { [job.webhookId]: -1 });
      return true;
    }
    const answer = await send(target, job, this.connections);
    // Turned off or removed while the request was out: no next attempt.
    const retryAt = this.targets.isLive(job.webhookId) ? nextRetryAt(job, answer) : null;
    const report = reportOf(job, answer, retryAt);
    // The attempt's report and the job's next state in one batch: a retry is never made twice
    // under one attempt number, nor an attempt left unreported. An ordered webhook's retry keeps
    // its place in line (queue.ts); any other is queued under its due time.
    const retried = retryAt !== null ? { ...job, attempt: job.attempt + 1, dueAt: retryAt } : null;
    const retryKey = retried && (target.ordered ? key : jobKey(retried));
    await this.backlog.write(
      {
        put: { [reportKey(report)]: report, ...(retryKey ? { [retryKey]: retried } : {}) },
        delete: retryKey === key ? [] : [key],
      },
      { [job.webhookId]: retried === null ? -1 : 0 },
    );
    if (gone(answer)) await this.targets.disable(target, "the receiver answered 410 Gone");
    return retried === null;
  }
}
