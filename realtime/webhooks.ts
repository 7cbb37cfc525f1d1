import type * as Party from "partykit/server";
import type { OpsEvent } from "../functions/lib/events.ts";
import { scopeOfEvent } from "../functions/lib/events.ts";
import { signWebhook } from "../functions/lib/webhook-signature.ts";
import type { WebhookTarget } from "../db/queries/webhooks.ts";
import { hasAny, orderedKey, writeAtomically } from "./storage.ts";

// Webhook delivery from the organisation's room (SPEC "Webhooks"). Every event the room delivers
// becomes one job per matching webhook, kept in room storage (so a restart loses nothing) and
// drained by the room's alarm: a signed POST, 10 s to answer, 2xx is success; otherwise it is
// tried again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then given up. 410 Gone turns
// the webhook off. Each attempt is reported to the API, which keeps the delivery log.

interface Job {
  id: string;
  webhookId: string;
  event: OpsEvent;
  attempt: number;
  dueAt: number;
}

export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const TIMEOUT_MS = 10_000;
/**
 * Jobs read per drain (shared between the webhooks), and how long a drain keeps taking new ones:
 * the alarm comes straight back for the rest, having fanned out what was published meanwhile. (A
 * stalled receiver's queue would otherwise keep one drain, and every newer event, waiting.)
 */
const DRAIN_BATCH = 1_000;
const DRAIN_BUDGET_MS = 10_000;
/** Requests in flight per organisation. */
const CONCURRENCY = 16;
/** Jobs created per fan-out batch: events per batch shrink as the webhooks that want them grow. */
const FANOUT_JOB_BUDGET = 500;
const EXCERPT_LENGTH = 200;
/** The stored copy of the webhooks, one key each (`webhook:<id>`), and whether it was ever loaded. */
const TARGET_PREFIX = "webhook:";
const TARGETS_LOADED_KEY = "webhooksLoaded";
/** Attempt reports sent to the API per request, and how soon ones it did not take are sent again. */
const REPORT_BATCH = 500;
const REPORT_RETRY_MS = 5_000;

/**
 * Queued jobs are kept per webhook, by due time, then changeVersion:
 * `job:<webhookId>:<dueAt>:<changeVersion>:<id>`. Each webhook's due jobs are one key range, read
 * with its own limit, so one webhook's backlog never hides another's jobs.
 */
const jobPrefix = (webhookId: string) => `job:${webhookId}:`;
const jobKey = (job: Job) => `${orderedKey(jobPrefix(job.webhookId), job.dueAt)}:${orderedKey("", job.event.changeVersion)}:${job.id}`;
/** Where a webhook's jobs due after `at` begin. */
const dueAfter = (webhookId: string, at: number) => `${orderedKey(jobPrefix(webhookId), at + 1)}:`;

/** Calls an internal endpoint of the API for this room. */
export type InternalApi = (path: string, init?: RequestInit) => Promise<Response>;

function matches(pattern: string, type: string): boolean {
  if (pattern === "*" || pattern === type) return true;
  return pattern.endsWith(".*") && type.startsWith(pattern.slice(0, -1));
}

/** Whether a webhook receives an event: its scopes may see it and its patterns select it. */
export function wants(target: WebhookTarget, event: OpsEvent): boolean {
  const scope = scopeOfEvent(event.type);
  if (!target.enabled || !scope || !target.scopes.includes(scope)) return false;
  return target.events.length === 0 || target.events.some((pattern) => matches(pattern, event.type));
}

/** Runs work with at most `size` at once; the rest wait their turn, first come, first served. */
function slots(size: number): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (work) => {
    if (active < size) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, or is freed.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/**
 * One webhook's jobs that are due, read in key order a page at a time and handed out once each.
 * Pages continue after the last key read: an attempt re-queues its job under a later due time,
 * so nothing in flight is read twice, and jobs that fall due meanwhile are still reached.
 */
class DueJobs {
  private page: Array<[string, Job]> = [];
  private next = 0;
  private after: string | undefined;
  private reading: Promise<void> | null = null;
  private exhausted = false;

  constructor(
    private readonly storage: Party.Storage,
    private readonly webhookId: string,
    private readonly pageSize: number,
  ) {}

  async hasAny(): Promise<boolean> {
    await this.readPage();
    return this.page.length > 0;
  }

  /** The next due job, or undefined when there is none. */
  async take(): Promise<[string, Job] | undefined> {
    while (this.next >= this.page.length && !this.exhausted) {
      // Lanes of one webhook share the page; one of them reads the next.
      this.reading ??= this.readPage().finally(() => (this.reading = null));
      await this.reading;
    }
    return this.page[this.next++];
  }

  private async readPage(): Promise<void> {
    const page = await this.storage.list<Job>({
      prefix: jobPrefix(this.webhookId),
      end: dueAfter(this.webhookId, Date.now()),
      limit: this.pageSize,
      ...(this.after ? { startAfter: this.after } : {}),
    });
    this.page = [...page];
    this.next = 0;
    this.after = this.page.at(-1)?.[0] ?? this.after;
    this.exhausted = this.page.length === 0;
  }
}

export class WebhookDispatcher {
  private targets: WebhookTarget[] | null = null;
  /** Reloads run one after another, so the last one started is the one that stays. */
  private reloading: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: Party.Storage,
    private readonly api: InternalApi,
  ) {}

  /** Fetches the organisation's webhooks again (after the API says they changed). */
  reload(): Promise<void> {
    const run = this.reloading.then(() => this.fetchTargets());
    this.reloading = run.catch(() => {});
    return run;
  }

  private async fetchTargets(): Promise<void> {
    const response = await this.api("/webhooks");
    if (!response.ok) throw new Error(`API answered ${response.status}`);
    const targets = ((await response.json()) as { webhooks: WebhookTarget[] }).webhooks;
    const stored = await this.storage.list<WebhookTarget>({ prefix: TARGET_PREFIX });
    this.targets = targets;
    const current = new Set(targets.map((t) => TARGET_PREFIX + t.id));
    const put = Object.fromEntries([[TARGETS_LOADED_KEY, true], ...targets.map((t) => [TARGET_PREFIX + t.id, t])]);
    await writeAtomically(this.storage, { put, delete: [...stored.keys()].filter((key) => !current.has(key)) });
    // What is queued for webhooks that are now gone or off is dropped. The queues are found in
    // storage, not from the stored copy, so a drop cut short is finished by the next reload.
    const live = new Set(targets.filter((t) => t.enabled).map((t) => t.id));
    for (const id of await this.webhooksWithJobs()) if (!live.has(id)) await this.dropJobsOf(id);
  }

  /** The ids of the webhooks that have jobs queued: one read per webhook, skipping from queue to queue. */
  private async webhooksWithJobs(): Promise<string[]> {
    const ids: string[] = [];
    for (;;) {
      const after = ids.length ? `${jobPrefix(ids.at(-1)!).slice(0, -1)};` : undefined; // ";" sorts just after ":"
      const [key] = (await this.storage.list({ prefix: "job:", limit: 1, ...(after ? { startAfter: after } : {}) })).keys();
      if (!key) return ids;
      ids.push(key.slice("job:".length).split(":")[0]!);
    }
  }

  /** Deletes a webhook's queued jobs, a page at a time: the queue may be far larger than memory. */
  private async dropJobsOf(webhookId: string): Promise<void> {
    for (;;) {
      const page = await this.storage.list({ prefix: jobPrefix(webhookId), limit: 1_000 });
      if (page.size === 0) return;
      await writeAtomically(this.storage, { delete: [...page.keys()] });
    }
  }

  /**
   * The webhooks, fetched from the API once each time the room wakes (and again on a notice that
   * they changed): a notice sent while the room was down is lost, so the stored copy is only the
   * fallback for when the API cannot be reached.
   */
  private async loadTargets(): Promise<WebhookTarget[]> {
    if (this.targets === null) {
      try {
        await this.reload();
      } catch (error) {
        if (!(await this.storage.get<boolean>(TARGETS_LOADED_KEY))) throw error;
        this.targets = await this.storedTargets();
      }
    }
    return this.targets ?? [];
  }

  private async storedTargets(): Promise<WebhookTarget[]> {
    return [...(await this.storage.list<WebhookTarget>({ prefix: TARGET_PREFIX })).values()];
  }

  /** The webhooks that may have jobs queued, without asking the API: the loaded ones, or the stored copy. */
  private async liveTargets(): Promise<WebhookTarget[]> {
    return (this.targets ?? (await this.storedTargets())).filter((t) => t.enabled);
  }

  /** Whether the loaded copy has the webhook, turned on. */
  private isLive(webhookId: string): boolean {
    return this.targets?.some((t) => t.id === webhookId && t.enabled) ?? false;
  }

  /** How many events to turn into jobs at once, so that a batch holds about FANOUT_JOB_BUDGET jobs. */
  async fanoutBatchSize(): Promise<number> {
    const live = (await this.loadTargets()).filter((t) => t.enabled).length;
    return Math.max(1, Math.floor(FANOUT_JOB_BUDGET / Math.max(1, live)));
  }

  /**
   * The jobs for the events, one per webhook that wants each, as storage entries: the caller
   * stores them in the same batch as it records the events handed over.
   */
  async jobsFor(events: OpsEvent[]): Promise<Record<string, Job>> {
    const targets = await this.loadTargets();
    return Object.fromEntries(events.flatMap((event) => targets.filter((t) => wants(t, event)).map((t) => this.job(t.id, event))));
  }

  /**
   * Queues one event for one webhook, whatever its filters (test deliveries, redeliveries);
   * answers whether it was queued.
   */
  async enqueueFor(webhookId: string, event: OpsEvent): Promise<boolean> {
    // The API checked that the webhook exists and is on: a room whose copy says otherwise missed
    // a change, so it loads them again first (the drain reads only the queues of live webhooks).
    await this.loadTargets();
    if (!this.isLive(webhookId)) await this.reload();
    if (!this.isLive(webhookId)) return false;
    await this.storage.put(Object.fromEntries([this.job(webhookId, event)]));
    return true;
  }

  private job(webhookId: string, event: OpsEvent): [string, Job] {
    const job = { id: crypto.randomUUID(), webhookId, event, attempt: 1, dueAt: Date.now() };
    return [jobKey(job), job];
  }

  /** When the first queued job falls due, or null. */
  private async firstDue(): Promise<number | null> {
    const firsts = await Promise.all(
      (await this.liveTargets()).map(async (t) => [...(await this.storage.list<Job>({ prefix: jobPrefix(t.id), limit: 1 })).values()][0]?.dueAt),
    );
    const due = firsts.filter((at): at is number => at !== undefined);
    return due.length ? Math.min(...due) : null;
  }

  /** When there is work next: now if attempt reports wait to be sent, else when the next queued job falls due, or null. */
  async nextDue(): Promise<number | null> {
    if (await hasAny(this.storage, "report:")) return Date.now();
    return this.firstDue();
  }

  /**
   * Delivers the jobs that fall due, for up to DRAIN_BUDGET_MS; answers when the next one falls
   * due, or null.
   */
  async drain(): Promise<number | null> {
    await this.flushReports();
    const live = (await this.loadTargets()).filter((t) => t.enabled);
    // Each webhook's due jobs, read a page at a time with its own share of the batch.
    const pageSize = Math.max(CONCURRENCY, Math.floor(DRAIN_BATCH / Math.max(1, live.length)));
    const queues = live.map((t) => new DueJobs(this.storage, t.id, pageSize));
    const waiting = (await Promise.all(queues.map(async (queue) => ((await queue.hasAny()) ? queue : null)))).filter((q) => q !== null);
    // CONCURRENCY requests in flight, split equally between the webhooks with jobs due (at least
    // one lane each): while there are no more than CONCURRENCY of them, every lane has a slot of
    // its own, so a receiver that stalls for the whole timeout holds up only its own deliveries,
    // and the others' lanes go on taking jobs until the round ends.
    const withSlot = slots(CONCURRENCY);
    const deadline = Date.now() + DRAIN_BUDGET_MS;
    const share = Math.max(1, Math.floor(CONCURRENCY / Math.max(1, waiting.length)));
    const lanes = waiting.flatMap((queue) => {
      const lane = async () => {
        for (let entry = await queue.take(); entry && Date.now() < deadline; entry = await queue.take()) {
          const [key, job] = entry;
          await withSlot(() => (Date.now() < deadline ? this.attempt(key, job) : Promise.resolve()));
        }
      };
      return Array.from({ length: share }, lane);
    });
    // Every lane is waited for, even after one fails: none may still be sending when the next
    // drain starts, or it could send the same job again.
    const failed = (await Promise.allSettled(lanes)).find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    const reported = await this.flushReports();
    const nextJob = await this.firstDue();
    // Attempts the API did not take yet are sent again in a while, jobs or no jobs.
    return reported ? nextJob : Math.min(nextJob ?? Infinity, Date.now() + REPORT_RETRY_MS);
  }

  private async attempt(key: string, job: Job): Promise<void> {
    // Looked up now, not when the drain began: a change the API has answered applies at once.
    const target = this.targets?.find((t) => t.id === job.webhookId);
    if (!target?.enabled) return void (await this.storage.delete(key));
    const body = JSON.stringify(job.event);
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    let excerpt: string | null = null;
    try {
      const response = await fetch(target.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "opsroom-webhooks/1", ...(await signWebhook(target.secret, job.event.id, body)) },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = response.status;
      excerpt = (await response.text().catch(() => "")).slice(0, EXCERPT_LENGTH) || null;
    } catch (cause) {
      error = cause instanceof Error && cause.name === "TimeoutError" ? "timed out after 10 s" : `could not connect: ${String(cause).slice(0, 150)}`;
    }
    const succeeded = status !== null && status >= 200 && status < 300;
    const gone = status === 410;
    const delay = RETRY_DELAYS_MS[job.attempt - 1];
    // Turned off or removed while the request was out: no next attempt.
    const retry = !succeeded && !gone && delay !== undefined && this.isLive(job.webhookId);
    const nextRetryAt = retry ? started + delay : null;
    const report = {
      id: crypto.randomUUID(),
      webhookId: job.webhookId,
      eventId: job.event.id,
      eventType: job.event.type,
      changeVersion: job.event.changeVersion || null,
      attempt: job.attempt,
      outcome: succeeded ? "succeeded" : retry ? "retrying" : "failed",
      responseStatus: status,
      durationMs: Date.now() - started,
      error: error ?? (succeeded ? null : gone ? "the receiver answered 410 Gone; the webhook is now disabled" : `the receiver answered ${status}`),
      responseExcerpt: excerpt,
      nextRetryAt: nextRetryAt ? new Date(nextRetryAt).toISOString() : null,
    };
    // The attempt's report and the job's next state in one batch: a retry is never made twice
    // under one attempt number, nor an attempt left unreported.
    const retried = retry ? { ...job, attempt: job.attempt + 1, dueAt: nextRetryAt! } : null;
    await writeAtomically(this.storage, {
      put: { [`report:${report.id}`]: report, ...(retried ? { [jobKey(retried)]: retried } : {}) },
      delete: [key],
    });
    if (gone) await this.disable(target);
  }

  private async disable(target: WebhookTarget): Promise<void> {
    // The current copy (a reload may have replaced the one the attempt started with).
    const current = this.targets?.find((t) => t.id === target.id) ?? target;
    current.enabled = false;
    await this.storage.put(TARGET_PREFIX + current.id, current);
    await this.dropJobsOf(current.id);
    await this.api(`/webhooks/${target.id}/disable`, { method: "POST", body: JSON.stringify({ reason: "the receiver answered 410 Gone" }) }).catch(() => {});
  }

  /**
   * Sends the stored attempt reports to the API; kept for the next drain if it cannot be reached.
   * Answers whether none is left.
   */
  private async flushReports(): Promise<boolean> {
    for (;;) {
      const reports = await this.storage.list<Record<string, unknown>>({ prefix: "report:", limit: REPORT_BATCH });
      if (reports.size === 0) return true;
      const response = await this.api("/deliveries", { method: "POST", body: JSON.stringify({ attempts: [...reports.values()] }) }).catch(() => null);
      if (!response?.ok) return false;
      await writeAtomically(this.storage, { delete: [...reports.keys()] });
    }
  }
}
