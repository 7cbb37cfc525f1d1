import type * as Party from "partykit/server";
import type { OpsEvent } from "../../domain/events.ts";
import { orderedKey, writeAtomically } from "../storage.ts";
import { eventOf, storedForm, type StoredEvent } from "../stored-event.ts";
import type { InternalApi } from "../webhooks/targets.ts";
import { RETRY_MS, type Alarm } from "./alarm.ts";
import { fanOutKey } from "./fan-out.ts";

// The order in which the room delivers events: strictly by changeVersion, each once. The room
// remembers the last changeVersion it delivered (the watermark), drops anything at or below it (a
// repeated publish), and when an event arrives after a gap it fetches the missing ones from the API
// before going on; events still missing wait for the alarm to try again.
//
// An event goes to the sockets first and only then to storage, with writes that do not hold the
// sockets back; the publish is acknowledged once they are durable (`storage.sync()`), so an
// acknowledged event is never lost. Events are kept one key per event, never in one value: a burst
// of any size must fit (a value is capped at 128 KiB, a few hundred events).

const WATERMARK_KEY = "watermark";
/** Events held behind a gap, `pending:<changeVersion>`; mirrored by `this.pending`. */
const PENDING_PREFIX = "pending:";
/** Pages of missed events one attempt to fill a gap fetches at most. */
const GAP_PAGES_PER_ATTEMPT = 4;

export class EventOrder {
  /** The last changeVersion delivered to sockets; null until known. */
  private watermark: number | null = null;
  /** Events that arrived ahead of a gap, by changeVersion; kept in storage too (PENDING_PREFIX). */
  private pending = new Map<number, OpsEvent>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: Party.Storage,
    private readonly api: InternalApi,
    private readonly alarm: Alarm,
    /** Sends one event to the sockets that may see it. */
    private readonly deliver: (event: OpsEvent) => void,
    /** Tells every socket the room now stands at `changeVersion` (a `ready`): the events before it are gone. */
    private readonly skippedTo: (changeVersion: number) => void,
  ) {}

  /** Reads the watermark and the events held behind a gap (as the room starts). */
  async load(): Promise<void> {
    this.watermark = (await this.storage.get<number>(WATERMARK_KEY)) ?? null;
    const held = await this.storage.list<StoredEvent>({ prefix: PENDING_PREFIX });
    this.pending = new Map([...held.values()].map((value) => [value.changeVersion, eventOf(value)]));
  }

  /** Whether events are held behind a gap. */
  hasGap(): boolean {
    return this.pending.size > 0;
  }

  /** Asks the API where the organisation stands, unless known; an API that cannot answer is asked again later. */
  async findStartingPoint(): Promise<void> {
    if (this.watermark === null) await this.learnStartingPoint().catch(() => {});
  }

  /**
   * Runs `send` with the changeVersion the room stands at. "ready" promises every event after it,
   * so a room new to the organisation asks the API first (else it would say 0 and never send what
   * came before its first publish). In line with publishes, so none moves the watermark meanwhile.
   */
  announce(send: (changeVersion: number) => void): Promise<void> {
    return this.serially(async () => {
      await this.findStartingPoint();
      send(this.watermark ?? 0);
    });
  }

  /** Takes published events in; answers the watermark once all of it is durable (and so may be acknowledged). */
  async publish(events: OpsEvent[]): Promise<number | null> {
    const { watermark, kept } = await this.serially(() => this.accept(events));
    await kept;
    return watermark;
  }

  /** Events held behind a gap, or a room that could not learn where it stands: tries again. */
  async retry(): Promise<void> {
    if (this.pending.size === 0 && this.watermark !== null) return;
    await this.serially(async () => void (await (await this.accept([])).kept));
  }

  /** Runs publishes, gap retries and new sockets' ready one at a time, so the watermark never moves under a running one. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Takes published events in, delivers whatever is now in order, and keeps the rest durably.
   * Answers the watermark and `kept`, which resolves once all of it is durable: the events go to
   * the sockets first, and the next publish need not wait for this one's storage.
   */
  private async accept(events: OpsEvent[]): Promise<{ watermark: number | null; kept: Promise<unknown> }> {
    if (this.watermark === null) {
      await this.learnStartingPoint().catch(() => {
        // The API is unreachable: start just before the earliest event in hand.
        const first = Math.min(...events.map((e) => e.changeVersion));
        this.watermark = Number.isFinite(first) ? first - 1 : null;
      });
    }
    if (this.watermark === null) return { watermark: null, kept: Promise.resolve() };
    const heldBefore = new Set(this.pending.keys());
    for (const event of events) if (event.changeVersion > this.watermark) this.pending.set(event.changeVersion, event);
    const delivered = this.deliverInOrder();
    if (this.pending.size > 0) {
      // A gap: fetch what is missing from the API rather than waiting for the sweep.
      await this.fillGap().catch(() => {});
      delivered.push(...this.deliverInOrder());
    }
    // The new watermark, the delivered events (for webhooks) and the events now held or released,
    // in one atomic batch, issued in delivery order: a room that restarts skips no event, and
    // repeats (to sockets, which drop a changeVersion they have seen) only what it had not kept.
    const put: Record<string, unknown> = { [WATERMARK_KEY]: this.watermark };
    for (const event of delivered) put[fanOutKey(event)] = storedForm(event);
    for (const [changeVersion, event] of this.pending)
      if (!heldBefore.has(changeVersion)) put[orderedKey(PENDING_PREFIX, changeVersion)] = storedForm(event);
    const released = [...heldBefore]
      .filter((changeVersion) => !this.pending.has(changeVersion))
      .map((cv) => orderedKey(PENDING_PREFIX, cv));
    const written = writeAtomically(this.storage, { put, delete: released }, { unconfirmed: true });
    if (delivered.length > 0) await this.alarm.wakeAt(Date.now(), { unconfirmed: true });
    else if (this.pending.size > 0) await this.alarm.wakeAt(Date.now() + RETRY_MS, { unconfirmed: true });
    return { watermark: this.watermark, kept: written.then(() => this.storage.sync()) };
  }

  /** Sends every event that is next in line; answers them, in order. */
  private deliverInOrder(): OpsEvent[] {
    const delivered: OpsEvent[] = [];
    for (let next = this.pending.get(this.watermark! + 1); next; next = this.pending.get(this.watermark! + 1)) {
      this.pending.delete(next.changeVersion);
      this.deliver(next);
      delivered.push(next);
      this.watermark = next.changeVersion;
    }
    for (const changeVersion of this.pending.keys()) if (changeVersion <= this.watermark!) this.pending.delete(changeVersion);
    return delivered;
  }

  private async learnStartingPoint(): Promise<void> {
    const { watermark } = await this.callApi<{ watermark: number }>("/start");
    this.watermark = watermark;
  }

  private async fillGap(): Promise<void> {
    // A page stops at its count or its size (a few MiB), so a gap of large events takes several;
    // a few per attempt keep the room's memory bounded, and the next attempt goes on.
    const highestHeld = Math.max(...this.pending.keys());
    let after = this.watermark!;
    for (let page = 0; page < GAP_PAGES_PER_ATTEMPT && after + 1 < highestHeld; page++) {
      const { events } = await this.callApi<{ events: OpsEvent[] }>(`/events?after=${after}&limit=500`);
      if (page === 0) this.skipPruned(events[0]);
      for (const event of events) if (event.changeVersion > this.watermark!) this.pending.set(event.changeVersion, event);
      const last = events.at(-1);
      if (!last) return;
      after = last.changeVersion;
    }
  }

  /**
   * The API keeps every event of the organisation from the first it keeps (retention prunes only
   * the oldest), so when the first event it answers after the watermark is not the next one, the
   * ones between were pruned before the room could deliver them: a room that was down past
   * retention, or a sweep that pruned them before publishing them. Waiting would hold every later
   * event forever: the room goes on from there, and sends its sockets `ready` at the new watermark,
   * as on a reconnect, so clients catch up through the feed (which answers 410 resync_required
   * when what they lack is gone).
   */
  private skipPruned(first: OpsEvent | undefined): void {
    if (!first || first.changeVersion <= this.watermark! + 1) return;
    this.watermark = first.changeVersion - 1;
    this.skippedTo(this.watermark);
  }

  private async callApi<T>(path: string): Promise<T> {
    const response = await this.api(path);
    if (!response.ok) throw new Error(`API answered ${response.status}`);
    return (await response.json()) as T;
  }
}
