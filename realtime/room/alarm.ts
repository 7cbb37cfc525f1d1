import type * as Party from "partykit/server";

// The room's one alarm, which runs everything that is not a reply to a message: fanning delivered
// events out to the webhooks, draining their queues, and trying again what could not be done.
// When it is set for is remembered in memory, so an event costs no storage read, and a burst one
// alarm write.

/** How soon work that could not be done (a gap the API did not fill, webhooks that could not be loaded) is tried again. */
export const RETRY_MS = 5_000;
/** An alarm this late is assumed lost and set again. */
const OVERDUE_MS = 2_000;

export class Alarm {
  /** When the alarm is set for, as this room last set or read it (null: none); undefined until read. */
  private at: number | null | undefined = undefined;

  constructor(private readonly storage: Party.Storage) {}

  /** The alarm that was set has fired: none is set until the next wakeAt. */
  fired(): void {
    this.at = null;
  }

  /**
   * Sets the alarm for now unless one is set. Alarms are durable on Cloudflare, but `partykit dev`
   * forgets them when it restarts: a room that wakes with work still queued arms itself again.
   */
  async ensureSet(): Promise<void> {
    this.at = await this.storage.getAlarm();
    if (this.at === null) await this.wakeAt(Date.now());
  }

  /**
   * Sets the alarm to `at` unless it is already set for `at` or sooner. An alarm already due is
   * never pushed back: events a publish handed over while the alarm ran wait for no retry delay.
   * One long overdue is set again for now, in case it was lost (`partykit dev` forgets alarms when
   * it restarts); a spare run costs nothing. `unconfirmed`: the write does not hold the sockets
   * back; the caller syncs before it acknowledges anything.
   */
  async wakeAt(at: number, options: { unconfirmed?: boolean } = {}): Promise<void> {
    if (this.at === undefined) this.at = await this.storage.getAlarm();
    const current = this.at;
    const now = Date.now();
    if (current !== null && current <= at) {
      if (current > now - OVERDUE_MS) return;
      at = now;
    }
    this.at = at;
    await this.storage.setAlarm(at, options.unconfirmed ? { allowUnconfirmed: true } : undefined);
  }
}
