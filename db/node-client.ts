import pg from "pg";
import type { ClosableDatabase } from "./client.ts";

/**
 * The same `Database` interface over node-postgres, for Node-side tools (the CLI, the dev
 * command, test fixtures). The Worker never imports this file.
 */
export function connectNodeDatabase(url: string, options: { max?: number } = {}): ClosableDatabase {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 4 });
  pool.on("error", () => {});
  let queryCount = 0;
  return {
    async query<Row>(text: string, params: unknown[] = []) {
      queryCount++;
      const result = await pool.query(text, params);
      return { rows: result.rows as Row[] };
    },
    async transaction(statements) {
      queryCount++;
      const client = await pool.connect();
      try {
        await client.query("begin");
        const results = [];
        for (const { text, params } of statements)
          results.push({ rows: (await client.query(text, params)).rows as Record<string, unknown>[] });
        await client.query("commit");
        return results;
      } catch (error) {
        await client.query("rollback").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    get queryCount() {
      return queryCount;
    },
    close: () => pool.end(),
  };
}
