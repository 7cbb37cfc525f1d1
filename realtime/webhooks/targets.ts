import type * as Party from "partykit/server";
import { matchesFilter } from "../../domain/event-filter.ts";
import { scopeOfEvent, type OpsEvent } from "../../domain/events.ts";
import { webhookFilter, WebhookTargetSchema, type WebhookTarget } from "../protocol.ts";
import { writeAtomically } from "../storage.ts";
import type { Backlog } from "./backlog.ts";
import { dropJobsOf, rekeyHead, webhooksWithJobs } from "./queue.ts";

// The room's copy of the organisation's webhooks (url, patterns, scopes, secret), fetched from the
// API and kept one storage key each (`webhook:<id>`): an organisation may have hundreds.

const TARGET_PREFIX = "webhook:";
const TARGETS_LOADED_KEY = "webhooksLoaded";
/**
 * How long a loaded copy is trusted without a notice: the API tells the room of every change before
 * it answers, but a notice that failed (the room busy past the API's timeout) must not leave a
 * webhook that was turned off or deleted receiving events for as long as the room stays awake.
 */
export const TARGETS_MAX_AGE_MS = 60_000;

/**
 * The room var WEBHOOK_TARGETS_MAX_AGE_MS: TARGETS_MAX_AGE_MS when unset or not a whole number of
 * milliseconds above zero. Only a test sets it (test/webhooks/missed-notice.test.ts, a room of its
 * own), so that the case does not wait a minute.
 */
export function targetsMaxAgeOf(setting: string | undefined): number {
  const age = Number(setting);
  return setting !== undefined && setting !== "" && Number.isSafeInteger(age) && age > 0 ? age : TARGETS_MAX_AGE_MS;
}

/** Calls an internal endpoint of the API for this room. */
export type InternalApi = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * Whether a webhook receives an event: it is on, the event came after it was registered or last
 * turned on (the fan-out may come later than that), its scopes may see it, and its filter
 * (patterns, project, its own writes left out) selects it. The filter only narrows what the scopes
 * allow.
 */
export function wants(target: WebhookTarget, event: OpsEvent): boolean {
  const scope = scopeOfEvent(event);
  if (!target.enabled || event.changeVersion <= target.receivesAfter || !scope || !target.scopes.includes(scope)) return false;
  return matchesFilter(webhookFilter(target), event);
}

export class Targets {
  private loaded: WebhookTarget[] | null = null;
  private loadedAt = 0;
  /** Reloads run one after another, so the last one started is the one that stays. */
  private reloading: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: Party.Storage,
    private readonly api: InternalApi,
    private readonly backlog: Backlog,
    private readonly maxAgeMs: number = TARGETS_MAX_AGE_MS,
  ) {}

  /** Fetches the organisation's webhooks again (after the API says they changed). */
  reload(): Promise<void> {
    const run = this.reloading.then(() => this.fetch());
    this.reloading = run.catch(() => {});
    return run;
  }

  private async fetch(): Promise<void> {
    const response = await this.api("/webhooks");
    if (!response.ok) throw new Error(`API answered ${response.status}`);
    const targets = WebhookTargetSchema.array().parse(((await response.json()) as { webhooks: unknown }).webhooks);
    const stored = await this.storage.list<WebhookTarget>({ prefix: TARGET_PREFIX });
    // A webhook no longer ordered: its head may be waiting in place for a retry (queue.ts). Moved
    // before the copy that says it was ordered is replaced, so a move cut short is made again.
    const wasOrdered = new Set([...stored.values()].filter((t) => t.ordered).map((t) => t.id));
    for (const t of targets) if (t.enabled && !t.ordered && wasOrdered.has(t.id)) await rekeyHead(this.storage, t.id);
    this.loaded = targets;
    this.loadedAt = Date.now();
    const current = new Set(targets.map((t) => TARGET_PREFIX + t.id));
    const put = Object.fromEntries([[TARGETS_LOADED_KEY, true], ...targets.map((t) => [TARGET_PREFIX + t.id, t])]);
    await writeAtomically(this.storage, { put, delete: [...stored.keys()].filter((key) => !current.has(key)) });
    // What is queued for webhooks that are now gone or off is dropped. The queues are found in
    // storage, not from the stored copy, so a drop cut short is finished by the next reload.
    const live = new Set(targets.filter((t) => t.enabled).map((t) => t.id));
    for (const id of await webhooksWithJobs(this.storage)) if (!live.has(id)) await dropJobsOf(this.storage, this.backlog, id);
  }

  /**
   * The webhooks, fetched from the API each time the room wakes, again on a notice that they
   * changed, and again when the copy is over a minute old (the room var WEBHOOK_TARGETS_MAX_AGE_MS): a notice sent while the room was down
   * (or that failed) is lost, so the stored copy is only the fallback for when the API cannot be
   * reached.
   */
  async all(): Promise<WebhookTarget[]> {
    if (this.loaded === null || Date.now() - this.loadedAt > this.maxAgeMs) {
      try {
        await this.reload();
      } catch (error) {
        if (this.loaded !== null) return this.loaded;
        if (!(await this.storage.get<boolean>(TARGETS_LOADED_KEY))) throw error;
        this.loaded = await this.stored();
      }
    }
    return this.loaded ?? [];
  }

  /** The webhooks that may have jobs queued, without asking the API: the loaded ones, or the stored copy. */
  async live(): Promise<WebhookTarget[]> {
    return (this.loaded ?? (await this.stored())).filter((t) => t.enabled);
  }

  /** The loaded copy of one webhook, looked up now (a change the API answered applies at once). */
  current(webhookId: string): WebhookTarget | undefined {
    return this.loaded?.find((t) => t.id === webhookId);
  }

  /** Whether the loaded copy has the webhook, turned on. */
  isLive(webhookId: string): boolean {
    return this.current(webhookId)?.enabled ?? false;
  }

  /**
   * A receiver answered 410 Gone: the API is told, then the webhook is off here and its queue
   * dropped. In line with reloads, and the API first: a reload under way when the 410 came, which
   * read the webhook on, would otherwise put it back on here after it was turned off, and events
   * fanned out meanwhile would be queued for it.
   */
  disable(target: WebhookTarget, reason: string): Promise<void> {
    const run = this.reloading.then(async () => {
      await this.api(`/webhooks/${target.id}/disable`, { method: "POST", body: JSON.stringify({ reason }) }).catch(() => {});
      // The current copy (a reload may have replaced the one the attempt started with).
      const current = this.current(target.id) ?? target;
      current.enabled = false;
      await this.storage.put(TARGET_PREFIX + current.id, current);
      await dropJobsOf(this.storage, this.backlog, current.id);
    });
    this.reloading = run.catch(() => {});
    return run;
  }

  /** The stored copy, parsed: one stored before a field was added gets its default. */
  private async stored(): Promise<WebhookTarget[]> {
    return WebhookTargetSchema.array().parse([...(await this.storage.list({ prefix: TARGET_PREFIX })).values()]);
  }
}
