import { SQL, StringChunk, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { tasks } from "../../db/schema/index.ts";
import { compileStatement, compileStatementChecked, dialect } from "../../db/statements/engine/compile.ts";
import { sql as fast } from "../../db/statements/engine/sql-tag.ts";
import { updateTask } from "../../db/statements/tasks.ts";

// db/statements/engine/compile.ts: a statement's text and parameters in one walk, exactly as drizzle's
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

// db/statements/engine/sql-tag.ts: the statements' `sql`, which makes drizzle's trees without drizzle's
// Table scan. The trees must be drizzle's, chunk for chunk, so both compilers read them as before.
describe("the statements' sql tag", () => {
  /** A tree as its kinds of chunk: fragments and text by their content, anything else as it is. */
  const shape = (chunk: unknown): unknown =>
    chunk instanceof SQL ? { sql: chunk.queryChunks.map(shape) } : chunk instanceof StringChunk ? { text: chunk.value } : chunk;
  const alike = (ours: SQL, theirs: SQL) => {
    expect(ours).toBeInstanceOf(SQL);
    expect(shape(ours)).toStrictEqual(shape(theirs));
    expect(dialect.sqlToQuery(ours)).toEqual(dialect.sqlToQuery(theirs));
    expect(compileStatement(ours)).toEqual(compileStatement(theirs));
  };

  it("makes drizzle's tree for templates, raw text and joins, with or without parameters", () => {
    const when = new Date("2026-01-02T03:04:05Z");
    alike(fast``, sql``);
    alike(fast`select 1`, sql`select 1`);
    alike(fast`${1}`, sql`${1}`);
    alike(fast`${"a"} and ${null}`, sql`${"a"} and ${null}`);
    alike(
      fast`select ${tasks.title} from ${tasks} where ${tasks.id} = ${"id"} and d < ${when}`,
      sql`select ${tasks.title} from ${tasks} where ${tasks.id} = ${"id"} and d < ${when}`,
    );
    alike(fast.raw("now()"), sql.raw("now()"));
    alike(fast.join([fast`a = ${1}`, fast`b`], fast` and `), sql.join([sql`a = ${1}`, sql`b`], sql` and `));
    alike(fast.join([fast`a`, fast`b`]), sql.join([sql`a`, sql`b`]));
    alike(fast.join([]), sql.join([]));
    alike(
      fast`x in ${fast.join([fast.param(["p"]), fast.identifier("n"), fast.placeholder("q")], ", ")}`,
      sql`x in ${sql.join([sql.param(["p"]), sql.identifier("n"), sql.placeholder("q")], ", ")}`,
    );
  });

  it("answers SQL that drizzle's own methods work on", () => {
    const query = fast`select ${1}`;
    expect(query.append(fast` + ${2}`)).toBe(query);
    expect(dialect.sqlToQuery(query)).toMatchObject({ sql: "select $1 + $2", params: [1, 2] });
    expect(dialect.sqlToQuery(fast`select ${"x"}`.inlineParams()).sql).toBe("select 'x'");
  });
});
