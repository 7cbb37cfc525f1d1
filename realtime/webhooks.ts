import type * as Party from "partykit/server";
import type { OpsEvent } from "../functions/lib/events.ts";
import { scopeOfEvent } from "../functions/lib/events.ts";
import { signWebhook } from "../functions/lib/webhook-signature.ts";
import type { WebhookTarget } from "../db/queries/webhooks.ts";
import { orderedKey, writeAtomically } from "./storage.ts";

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
 * Jobs attempted per drain, and how long a drain keeps taking new ones: the alarm comes straight
 * back for the rest, having fanned out what was published meanwhile. (A stalled receiver's queue
 * would otherwise keep one drain, and every newer event, waiting for its timeouts.)
 */
const DRAIN_BATCH = 2_000;
const DRAIN_BUDGET_MS = 10_000;
const CONCURRENCY = 16;
/** Requests one webhook may have in flight when others are waiting too. */
const MIN_SHARE = 4;
const EXCERPT_LENGTH = 200;
/** The stored copy of the webhooks, one key each (`webhook:<id>`), and whether it was ever loaded. */
const TARGET_PREFIX = "webhook:";
const TARGETS_LOADED_KEY = "webhooksLoaded";
/** Attempt reports sent to the API per request, and how soon ones it did not take are sent again. */
const REPORT_BATCH = 500;
const REPORT_RETRY_MS = 5_000;

/** Queued jobs are kept `job:<dueAt>:<id>`, so listing them in key order lists them by due time. */
const JOB_PREFIX = "job:";
const jobKey = (job: Pick<Job, "dueAt" | "id">) => `${orderedKey(JOB_PREFIX, job.dueAt)}:${job.id}`;

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

export class WebhookDispatcher {
  private targets: WebhookTarget[] | null = null;

  constructor(
    private readonly storage: Party.Storage,
    private readonly api: InternalApi,
  ) {}

  /** Fetches the organisation's webhooks again (after the API says they changed). */
  async reload(): Promise<void> {
    const response = await this.api("/webhooks");
    if (!response.ok) throw new Error(`API answered ${response.status}`);
    const targets = ((await response.json()) as { webhooks: WebhookTarget[] }).webhooks;
    this.targets = targets;
    const stored = await this.storage.list<WebhookTarget>({ prefix: TARGET_PREFIX });
    const current = new Set(targets.map((t) => TARGET_PREFIX + t.id));
    const put = Object.fromEntries([[TARGETS_LOADED_KEY, true], ...targets.map((t) => [TARGET_PREFIX + t.id, t])]);
    await writeAtomically(this.storage, { put, delete: [...stored.keys()].filter((key) => !current.has(key)) });
    // What was queued for webhooks that are now gone or off is dropped.
    const live = new Set(targets.filter((t) => t.enabled).map((t) => t.id));
    const stopped = new Set([...stored.values()].filter((t) => t.enabled && !live.has(t.id)).map((t) => t.id));
    if (stopped.size > 0) await this.dropJobsOf(stopped);
  }

  /** Deletes the queued jobs of the webhooks, a page at a time: the queue may be far larger than memory. */
  private async dropJobsOf(webhookIds: Set<string>): Promise<void> {
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.storage.list<Job>({ prefix: JOB_PREFIX, limit: 1_000, ...(startAfter ? { startAfter } : {}) });
      if (page.size === 0) return;
      await writeAtomically(this.storage, { delete: [...page].filter(([, job]) => webhookIds.has(job.webhookId)).map(([key]) => key) });
      startAfter = [...page.keys()].at(-1);
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
        this.targets = [...(await this.storage.list<WebhookTarget>({ prefix: TARGET_PREFIX })).values()];
      }
    }
    return this.targets ?? [];
  }

  /**
   * The jobs for the events, one per webhook that wants each, as storage entries: the caller
   * stores them in the same batch as it records the events handed over.
   */
  async jobsFor(events: OpsEvent[]): Promise<Record<string, Job>> {
    const targets = await this.loadTargets();
    return Object.fromEntries(events.flatMap((event) => targets.filter((t) => wants(t, event)).map((t) => this.job(t.id, event))));
  }

  /** Queues one event for one webhook, whatever its filters (test deliveries, redeliveries). */
  async enqueueFor(webhookId: string, event: OpsEvent): Promise<void> {
    await this.storage.put(Object.fromEntries([this.job(webhookId, event)]));
  }

  private job(webhookId: string, event: OpsEvent): [string, Job] {
    const job = { id: crypto.randomUUID(), webhookId, event, attempt: 1, dueAt: Date.now() };
    return [jobKey(job), job];
  }

  /** When the first queued job falls due, or null. */
  private async firstDue(): Promise<number | null> {
    const [first] = (await this.storage.list<Job>({ prefix: JOB_PREFIX, limit: 1 })).values();
    return first?.dueAt ?? null;
  }

  /** When there is work next: now if attempt reports wait to be sent, else when the next queued job falls due, or null. */
  async nextDue(): Promise<number | null> {
    if ((await this.storage.list({ prefix: "report:", limit: 1 })).size > 0) return Date.now();
    return this.firstDue();
  }

  /** Delivers the jobs that are due (up to DRAIN_BATCH); answers when the next one falls due, or null. */
  async drain(): Promise<number | null> {
    await this.flushReports();
    const targets = new Map((await this.loadTargets()).map((t) => [t.id, t]));
    // Keys sort by due time, so the due jobs are a range: the ones waiting hours are not read.
    const due = [...(await this.storage.list<Job>({ prefix: JOB_PREFIX, end: jobKey({ dueAt: Date.now() + 1, id: "" }), limit: DRAIN_BATCH }))];
    // CONCURRENCY requests in flight, shared fairly: each webhook works through its own jobs in
    // due order on a few lanes (an equal share of the slots, at least MIN_SHARE), and the lanes
    // take slots first come, first served. A receiver that stalls for the whole timeout holds its
    // own lanes, never every slot.
    const byWebhook = new Map<string, Array<[string, Job]>>();
    for (const entry of due) {
      const jobs = byWebhook.get(entry[1].webhookId);
      if (jobs) jobs.push(entry);
      else byWebhook.set(entry[1].webhookId, [entry]);
    }
    const withSlot = slots(CONCURRENCY);
    const deadline = Date.now() + DRAIN_BUDGET_MS;
    const share = Math.max(MIN_SHARE, Math.ceil(CONCURRENCY / byWebhook.size));
    const lanes = [...byWebhook.values()].flatMap((jobs) => {
      let next = 0;
      const lane = async () => {
        for (let entry = jobs[next++]; entry && Date.now() < deadline; entry = jobs[next++]) {
          const [key, job] = entry;
          await withSlot(() => (Date.now() < deadline ? this.attempt(key, job, targets.get(job.webhookId)) : Promise.resolve()));
        }
      };
      return Array.from({ length: Math.min(share, jobs.length) }, lane);
    });
    await Promise.all(lanes);
    const reported = await this.flushReports();
    const nextJob = await this.firstDue();
    // Attempts the API did not take yet are sent again in a while, jobs or no jobs.
    return reported ? nextJob : Math.min(nextJob ?? Infinity, Date.now() + REPORT_RETRY_MS);
  }

  private async attempt(key: string, job: Job, target: WebhookTarget | undefined): Promise<void> {
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
    const retry = !succeeded && !gone && delay !== undefined;
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
    target.enabled = false;
    await this.storage.put(TARGET_PREFIX + target.id, target);
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
