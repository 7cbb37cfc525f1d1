import type { PgTable } from "drizzle-orm/pg-core";
import type { SQL } from "drizzle-orm/sql/sql";
import { sql } from "./sql-tag.ts";

/**
 * The rooms' acknowledgements a Worker isolate was told and has not recorded yet. Recording one
 * with a statement of its own cost every write a third request (after its statement and its
 * publish); instead the isolate's next write statement records what is pending here, in one CTE
 * of its own statement (db/statements/engine/sql.ts runWrite). What no later write of this isolate
 * records (the last write before a quiet spell, an isolate evicted) the sweep finds unrecorded
 * after its grace and publishes again; the room drops what it delivered already and acknowledges
 * it, and the sweep records that at once (services/events.ts). Nothing is lost either way: an
 * event unrecorded is only one the sweep may send twice.
 */
export class PendingAcknowledgements {
  /** At most this many are held; the oldest beyond it are dropped (the sweep re-sends them, harmlessly). */
  static readonly HELD = 5_000;
  #orgIds: string[] = [];
  #changeVersions: number[] = [];

  get size(): number {
    return this.#orgIds.length;
  }

  add(orgId: string, changeVersions: readonly number[]): void {
    for (const changeVersion of changeVersions) {
      this.#orgIds.push(orgId);
      this.#changeVersions.push(changeVersion);
    }
    const over = this.#orgIds.length - PendingAcknowledgements.HELD;
    if (over > 0) {
      this.#orgIds.splice(0, over);
      this.#changeVersions.splice(0, over);
    }
  }

  /**
   * Takes everything pending, as a CTE named `acknowledged` that records it, and `restore` to put
   * it back (db/statements/engine/sql.ts carryingAcknowledgements decides when). Null when none is pending.
   *
   * `for update skip locked`: a write never waits on an event row another statement holds (the
   * sweep recording the same acknowledgement, a prune), so carrying acknowledgements adds no lock
   * wait and no deadlock to a write; a row skipped is recorded by the one holding it or the sweep.
   * `events` is the events table, passed in by the statement that carries the CTE (db/statements/engine/sql.ts):
   * db/client.ts loads this module at start-up, which must not evaluate the schema's tables.
   */
  take(events: PgTable): { cte: SQL; restore(): void } | null {
    if (this.#orgIds.length === 0) return null;
    const orgIds = this.#orgIds;
    const changeVersions = this.#changeVersions;
    this.#orgIds = [];
    this.#changeVersions = [];
    return {
      cte: sql`acknowledged as (
        update ${events} e set published_at = now()
          where (e.org_id, e.change_version) in (
            select p.org_id, p.change_version from ${events} p
             where (p.org_id, p.change_version) in (select * from unnest(${sql.param(orgIds)}::uuid[], ${sql.param(changeVersions)}::bigint[]))
               and p.published_at is null
             for update skip locked))`,
      restore: () => {
        this.#orgIds.unshift(...orgIds);
        this.#changeVersions.unshift(...changeVersions);
      },
    };
  }
}
