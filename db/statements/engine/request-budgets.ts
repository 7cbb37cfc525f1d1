import type { SQL } from "drizzle-orm";
import { sql } from "./sql-tag.ts";

// What one request may do under its organisation's write lock, counted across its statements: the
// dependency links its cycle checks follow, the subtasks its checks visit, the records its deletes
// change with them (domain/limits.ts). Each count is a transaction-local setting: the operations of
// a batch (one transaction) share it, and a request alone starts from nothing. A statement reads
// what is left before its work, does no more than that (and one step more, to tell), and records
// what it spent; one that runs out is refused, and with it the batch.

export type BudgetName = "dependency_links" | "subtask_visits" | "cascade_records";

export interface RequestBudget {
  /** The request's limit, as SQL. */
  limit: SQL;
  /** What the request has left (int, 0 or more). */
  left: SQL;
  /** Records `spent` (int SQL) as what the request has spent in all; answers the setting, as text. */
  spendTo(spent: SQL): SQL;
}

export function requestBudget(name: BudgetName, limit: number): RequestBudget {
  const setting = sql.raw(`'opsroom.${name}'`);
  const total = sql.raw(String(limit));
  return {
    limit: total,
    left: sql`greatest(${total} - coalesce(nullif(current_setting(${setting}, true), '')::int, 0), 0)`,
    spendTo: (spent) => sql`set_config(${setting}, (${spent})::text, true)`,
  };
}
