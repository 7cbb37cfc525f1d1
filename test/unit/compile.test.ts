import { sql, type SQL } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { tasks } from "../../db/schema/index.ts";
import { compileStatement, compileStatementChecked, dialect } from "../../db/statements/compile.ts";
import { updateTask } from "../../db/statements/tasks.ts";

// db/statements/compile.ts: a statement's text and parameters in one walk, exactly as drizzle's
// sqlToQuery gives them. The whole stack suite compares the two on every statement it sends (its
// Workers run with CHECK_STATEMENTS=true); here each kind of chunk, and the kinds left to drizzle.

const same = (query: SQL) => {
  const { sql: text, params } = dialect.sqlToQuery(query);
  expect(compileStatement(query)).toEqual({ sql: text, params });
};

describe("compileStatement", () => {
  it("writes text, parameters, names, columns, tables and lists as drizzle does", () => {
    const when = new Date("2026-01-02T03:04:05Z");
    same(sql`select 1`);
    same(sql``);
    same(sql`select ${"a"}, ${1}, ${true}, ${null}, ${undefined}, ${when}, ${{ a: [1, "x"] }}`);
    same(sql`select ${tasks.title}, ${tasks.dueDate} from ${tasks} where ${tasks.id} = ${"id"}`);
    same(sql`select ${sql.identifier('odd "name"')} from t where x in ${["a", "b", sql`c`]} and y = ${sql.param(["s1", "s2"])}::text[]`);
    same(
      sql`with a as (${sql`select ${1} as one`}), b as (${sql.join([sql`${2}`, sql.raw("3"), sql`${"four"}`], sql`, `)}) select ${sql.param(null)}`,
    );
    same(sql.join([sql`a = ${1}`, sql`b = ${2}`], sql` and `));
  });

  it("maps a parameter through its encoder, and into SQL when the encoder answers SQL", () => {
    same(
      sql`select ${sql.param(5, { mapToDriverValue: (v: number) => v * 2 })}, ${sql.param("x", { mapToDriverValue: () => sql`now()` })}`,
    );
  });

  it("leaves placeholders, inlined parameters and aliased fragments to drizzle, whole", () => {
    for (const query of [
      sql`select ${sql.placeholder("p")}, ${1}`,
      sql`select ${"inline"}, ${2}`.inlineParams(),
      sql`select ${sql`x`.as("y")}, ${3}`,
    ]) {
      expect(compileStatement(query)).toEqual(dialect.sqlToQuery(query));
    }
  });

  it("compiles a real write statement as drizzle does, and the checked compile refuses a difference", async () => {
    let sent: { text: string; params: unknown[] } | undefined;
    const db: Database = {
      queryCount: 0,
      checksStatements: true,
      async query(text, params = []) {
        sent = { text, params };
        throw new Error("stop");
      },
      transaction: () => Promise.reject(new Error("no transaction")),
    };
    await expect(updateTask(db, { keyHash: "a".repeat(64) }, "0192d7a0-0000-7000-8000-000000000001", { title: "t" }, 3)).rejects.toThrow(
      "stop",
    );
    expect(sent!.text.length).toBeGreaterThan(4000);
    expect(sent!.params).toContain("t");
    // A chunk that reads differently the second time: the checked compile must refuse it.
    let reads = 0;
    const shifty = sql`select ${1}`;
    Object.defineProperty(shifty.queryChunks[0], "value", { get: () => [reads++ === 0 ? "select " : "select  "] });
    expect(() => compileStatementChecked(shifty)).toThrow(/differs from drizzle/);
  });
});
