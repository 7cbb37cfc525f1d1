import pg from "pg";
import type { Database, QueryResult, Statement } from "../../db/client.ts";

// One connection to the database, on which section 9 sends opsroom's statements and their floors
// in turn. node-postgres sends a statement with parameters as the Neon driver's SQL endpoint does:
// unnamed extended protocol (Parse, Bind, Execute, Sync), nothing prepared between calls. Two ways
// to time one:
//
//  - `client`: the wall time of the query from this side (hrtime around it);
//  - `server`: the server's own accounting, taken from its log. With log_min_duration_statement
//    = 0 (set for this session) Postgres logs, for each protocol message, how long it took:
//    parse (parse analysis and rewrite), bind (for an unnamed statement: planning, and the
//    parameters) and execute; client_min_messages = log hands those lines to this client as
//    notices, so no server log file is read. (pg_stat_statements with track_planning tells the
//    same apart, but needs shared_preload_libraries and a server restart.)

export interface Phases {
  parse: number;
  plan: number;
  execute: number;
}

const DURATION = /^duration: ([\d.]+) ms {2}(parse|bind|execute) /;

export interface TimedConnection {
  /** A `Database` on this connection: each query is timed the current way, its time kept in `last`. */
  db: Database;
  run(statement: Statement): Promise<QueryResult<Record<string, unknown>>>;
  /** The last query's client time (ms), and its phases when accounting. */
  last: { ms: number; phases: Phases | null };
  /** The last query's text. */
  lastText: string;
  /** Turns the server's accounting on or off (the log lines cost time of their own: timed rounds run without). */
  account(on: boolean): Promise<void>;
  /** Whether the server answered the accounting's log lines (PGlite may not). */
  accounts: boolean;
  close(): Promise<void>;
}

export async function openTimedConnection(url: string): Promise<TimedConnection> {
  const client = new pg.Client({ connectionString: url, application_name: "opsroom-bench-statements" });
  await client.connect();
  let phases: Phases | null = null;
  client.on("notice", (notice) => {
    const m = DURATION.exec(notice.message ?? "");
    if (!m || !phases) return;
    const key = m[2] === "bind" ? "plan" : (m[2] as "parse" | "execute");
    phases[key] += Number(m[1]);
  });
  let accounting = false;
  const timed: TimedConnection = {
    last: { ms: 0, phases: null },
    lastText: "",
    accounts: false,
    async run({ text, params }) {
      phases = accounting ? { parse: 0, plan: 0, execute: 0 } : null;
      const start = process.hrtime.bigint();
      const result = await client.query(text, params);
      timed.last = { ms: Number(process.hrtime.bigint() - start) / 1e6, phases };
      timed.lastText = text;
      if (phases && phases.parse + phases.plan + phases.execute > 0) timed.accounts = true;
      return { rows: result.rows as Record<string, unknown>[] };
    },
    db: {
      query: async <Row>(text: string, params: unknown[] = []) => (await timed.run({ text, params })) as QueryResult<Row>,
      transaction: () => Promise.reject(new Error("section 9 sends single statements")),
      queryCount: 0,
    },
    async account(on) {
      accounting = on;
      await client.query(on ? "set log_min_duration_statement = 0" : "reset log_min_duration_statement");
      await client.query(on ? "set client_min_messages = log" : "reset client_min_messages");
    },
    close: () => client.end(),
  };
  return timed;
}
