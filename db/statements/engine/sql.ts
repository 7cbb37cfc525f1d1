import type { SQL } from "drizzle-orm";
import { DatabaseUnavailableError, type Database, type Statement } from "../../client.ts";
import { events } from "../../schema/index.ts";
import { compileStatement, compileStatementChecked } from "./compile.ts";
import { sql } from "./sql-tag.ts";

/** The statement as this handle sends it: text and parameters (compared with drizzle's when the handle checks statements). */
export function compiledFor(db: Database, query: SQL): Statement {
  const { sql: text, params } = (db.checksStatements ? compileStatementChecked : compileStatement)(query);
  return { text, params };
}

/** Compiles a drizzle `sql` fragment to text + parameters and sends it as one statement. */
export async function run<Row>(db: Database, query: SQL): Promise<Row[]> {
  const { text, params } = compiledFor(db, query);
  const { rows } = await db.query<Row>(text, params);
  return rows;
}

/** Like run, for statements that always answer exactly one row. */
export async function runOne<Row>(db: Database, query: SQL): Promise<Row> {
  const rows = await run<Row>(db, query);
  if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}`);
  return rows[0]!;
}

export interface WriteStatement {
  /** The statement's CTEs: the caller, the checks, the change, the bump and the event. */
  ctes: SQL;
  /** The outcome's columns, computed over the CTEs: what the service settles. */
  columns: SQL;
  /** Boolean over the outcome `o`: the write did what it was asked (a no-op change counts). */
  succeeded: SQL;
  /** Over `o`: what the operation answers as its data when it succeeds. */
  answer: SQL;
  /** Over `o`: whether the write created its record (a create: true; a change or delete: false). */
  created: SQL;
  /**
   * Set when the statement's checks read rows other writes change (a dependency graph, the labels
   * a task names): a statement sees the database as it was when it began, before it queued on the
   * organisation's write lock, so such a write first takes the lock with this statement and then
   * runs, in one transaction sent in one request, seeing every write that went before it. (In a
   * batch the opening statement holds the lock already.)
   */
  lockFirst?: SQL | undefined;
}

/**
 * Runs a write statement and answers its outcome row. Alone, that is all. As an operation of a
 * batch (db.batch set), the statement also checks its own outcome: a refused operation raises
 * with its outcome, so the batch's transaction rolls back whole and the service settles the
 * outcome into the error a single call would answer (services/batch.ts).
 */
export function runWrite<Row>(db: Database, statement: WriteStatement): Promise<Row> {
  const step = db.batch;
  const check = step
    ? sql`where opsroom_batch_step(${statement.succeeded}, ${step.operation}::int, row_to_json(o),
        ${step.remember ? sql`json_build_object('created', ${statement.created}, 'data', ${statement.answer})` : sql`null::json`})`
    : sql``;
  const send = (ctes: SQL) => {
    const query = sql`with ${ctes}, outcome as (select ${statement.columns}) select * from outcome o ${check}`;
    return !statement.lockFirst || step ? runOne<Row>(db, query) : runAfter<Row>(db, statement.lockFirst, query);
  };
  // A batch's operations carry no acknowledgements: its transaction rolls back whole when one is refused.
  if (step) return send(statement.ctes);
  return carryingAcknowledgements(db, (acknowledged) => send(acknowledged ? sql`${statement.ctes}, ${acknowledged}` : statement.ctes));
}

/**
 * Sends a statement carrying the acknowledgements the handle holds (db/statements/engine/acknowledgements.ts),
 * as the CTE `acknowledged` (null when none is held). They are put back only when the database was
 * out of reach (the statement never ran); after any other failure they are dropped, so one bad
 * statement cannot fail every later write too, and the sweep sends those events again.
 */
export async function carryingAcknowledgements<T>(db: Database, send: (acknowledged: SQL | null) => Promise<T>): Promise<T> {
  const pending = db.acknowledgements?.take(events) ?? null;
  try {
    return await send(pending?.cte ?? null);
  } catch (error) {
    if (pending && error instanceof DatabaseUnavailableError) pending.restore();
    throw error;
  }
}

async function runAfter<Row>(db: Database, first: SQL, query: SQL): Promise<Row> {
  const results = await db.transaction([first, query].map((q) => compiledFor(db, q)));
  const rows = results.at(-1)!.rows as Row[];
  if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}`);
  return rows[0]!;
}
