import type * as Party from "partykit/server";
import type { OpsEvent } from "../../domain/events.ts";
import { orderedKey, writeAtomically } from "../storage.ts";
import { storedForm, type StoredEvent } from "../stored-event.ts";
import type { Backlog } from "./backlog.ts";

// The room's queue of webhook jobs, in room storage (a restart loses nothing). Jobs are kept per
// webhook, by due time, then changeVersion: `job:<webhookId>:<dueAt>:<changeVersion>:<id>`. Each
// webhook's due jobs are one key range, read with its own limit, so one webhook's backlog never
// hides another's jobs. An ordered webhook's retry keeps the key it was queued under (its place
// in line) with a later `dueAt` in its value: the jobs behind it wait until it is due again.

export interface Job {
  id: string;
  webhookId: string;
  /** In the room's stored form (../stored-event.ts): eventOf gives the event to send. */
  event: StoredEvent;
  attempt: number;
  dueAt: number;
}

const jobPrefix = (webhookId: string) => `job:${webhookId}:`;
export const jobKey = (job: Job) =>
  `${orderedKey(jobPrefix(job.webhookId), job.dueAt)}:${orderedKey("", job.event.changeVersion)}:${job.id}`;
/** Where a webhook's jobs due after `at` begin. */
const dueAfter = (webhookId: string, at: number) => `${orderedKey(jobPrefix(webhookId), at + 1)}:`;

/** A first attempt of `event` for one webhook, due now, as a storage entry. */
export function newJob(webhookId: string, event: OpsEvent): [string, Job] {
  const job = { id: crypto.randomUUID(), webhookId, event: storedForm(event), attempt: 1, dueAt: Date.now() };
  return [jobKey(job), job];
}

/** The ids of the webhooks that have jobs queued: one read per webhook, skipping from queue to queue. */
export async function webhooksWithJobs(storage: Party.Storage): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const after = ids.length ? `${jobPrefix(ids.at(-1)!).slice(0, -1)};` : undefined; // ";" sorts just after ":"
    const [key] = (await storage.list({ prefix: "job:", limit: 1, ...(after ? { startAfter: after } : {}) })).keys();
    if (!key) return ids;
    ids.push(key.slice("job:".length).split(":")[0]!);
  }
}

/** Deletes a webhook's queued jobs, a page at a time (the queue may be far larger than memory), and then its count. */
export async function dropJobsOf(storage: Party.Storage, backlog: Backlog, webhookId: string): Promise<void> {
  await backlog.ready();
  for (;;) {
    const page = await storage.list({ prefix: jobPrefix(webhookId), limit: 1_000 });
    if (page.size === 0) break;
    await backlog.write({ delete: [...page.keys()] }, { [webhookId]: -page.size });
  }
  await backlog.forget(webhookId);
}

/**
 * Moves a webhook's first job to the key of its due time. Only an ordered webhook's head waits in
 * place for its retry, so when the webhook stops being ordered, that job is the one to move.
 */
export async function rekeyHead(storage: Party.Storage, webhookId: string): Promise<void> {
  const [entry] = await storage.list<Job>({ prefix: jobPrefix(webhookId), limit: 1 });
  if (entry && entry[0] !== jobKey(entry[1])) await writeAtomically(storage, { put: { [jobKey(entry[1])]: entry[1] }, delete: [entry[0]] });
}

/** When the first job of any of these webhooks falls due, or null (an ordered webhook's head says when its line moves). */
export async function firstDue(storage: Party.Storage, webhookIds: string[]): Promise<number | null> {
  const firsts = await Promise.all(
    webhookIds.map(async (id) => [...(await storage.list<Job>({ prefix: jobPrefix(id), limit: 1 })).values()][0]?.dueAt),
  );
  const due = firsts.filter((at): at is number => at !== undefined);
  return due.length ? Math.min(...due) : null;
}

/**
 * One webhook's jobs that are due, read in key order a page at a time and handed out once each.
 * Pages continue after the last key read: an attempt re-queues its job under a later due time,
 * so nothing in flight is read twice, and jobs that fall due meanwhile are still reached. For an
 * ordered webhook, a job waiting for its retry ends the handing out: nothing behind it goes first.
 */
export class DueJobs {
  private page: Array<[string, Job]> = [];
  private next = 0;
  private after: string | undefined;
  private reading: Promise<void> | null = null;
  private exhausted = false;

  constructor(
    private readonly storage: Party.Storage,
    private readonly webhookId: string,
    private readonly pageSize: number,
    readonly ordered: boolean,
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
    const entry = this.page[this.next];
    if (this.ordered && entry && entry[1].dueAt > Date.now()) return undefined;
    this.next++;
    return entry;
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
