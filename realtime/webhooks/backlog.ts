import type * as Party from "partykit/server";
import { writeAtomically, type StorageChange } from "../storage.ts";

// How many jobs each webhook has queued (its backlog), and the cap on it: a receiver that is down
// must not let one webhook's queue grow without end (a replay alone can queue 10 000 jobs). The
// counts are kept in room storage (`backlog:<webhookId>`) and in memory, and every change that
// adds or removes jobs writes the webhook's new count in the same atomic batch, so the cap is
// checked without listing a queue that may hold thousands of jobs, and a restart keeps the counts
// the jobs have. The memory copy is the one decided on: a change moves it and issues its writes
// with no `await` between, so concurrent changes (a drain's lanes, a replay arriving meanwhile)
// reach storage in the order they counted. (A queue kept before the counts were starts from zero:
// the cap is lenient on it until it has drained, never refusing what it should take.)

const COUNT_PREFIX = "backlog:";
/** Jobs one webhook may have queued, unless the room's WEBHOOK_BACKLOG_LIMIT says otherwise. */
export const DEFAULT_BACKLOG_LIMIT = 10_000;

/** The limit a WEBHOOK_BACKLOG_LIMIT var sets: a positive integer, else the default. */
export function backlogLimitOf(setting: string | undefined): number {
  const limit = Number(setting);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : DEFAULT_BACKLOG_LIMIT;
}

export class Backlog {
  private counts = new Map<string, number>();
  private loading: Promise<void> | null = null;

  constructor(
    private readonly storage: Party.Storage,
    readonly limit: number,
  ) {}

  /** Reads the counts (once per room start); every other method needs them. */
  ready(): Promise<void> {
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = null;
      throw error;
    });
    return this.loading;
  }

  /** The jobs the webhook has queued. */
  queued(webhookId: string): number {
    return this.counts.get(webhookId) ?? 0;
  }

  /**
   * Writes `change` and moves each webhook's count by `moved` (jobs added; negative: removed), as
   * one atomic batch. Synchronous up to the writes being issued (see the top of this file).
   */
  write(change: StorageChange, moved: Record<string, number>, options: { unconfirmed?: boolean } = {}): Promise<unknown> {
    const put: Record<string, unknown> = { ...change.put };
    const deleted = [...(change.delete ?? [])];
    for (const [webhookId, by] of Object.entries(moved)) {
      if (by === 0) continue;
      // Never below zero: a job removed twice (a drop racing the attempt that settled it), or one
      // queued before the counts were, must not leave room for more than the limit.
      const count = Math.max(0, this.queued(webhookId) + by);
      // An empty queue keeps no count: a webhook deleted later leaves nothing behind.
      if (count === 0) {
        this.counts.delete(webhookId);
        deleted.push(COUNT_PREFIX + webhookId);
      } else {
        this.counts.set(webhookId, count);
        put[COUNT_PREFIX + webhookId] = count;
      }
    }
    return writeAtomically(this.storage, { put, delete: deleted }, options);
  }

  /** The webhook's queue is gone (dropped whole): its count goes too. */
  forget(webhookId: string): Promise<unknown> {
    this.counts.delete(webhookId);
    return this.storage.delete(COUNT_PREFIX + webhookId);
  }

  private async load(): Promise<void> {
    const stored = await this.storage.list<number>({ prefix: COUNT_PREFIX });
    this.counts = new Map([...stored].map(([key, count]) => [key.slice(COUNT_PREFIX.length), count]));
  }
}
