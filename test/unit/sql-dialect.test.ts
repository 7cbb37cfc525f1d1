import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { getTableName, is, Table } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../db/schema/index.ts";

// The house dialect of db/statements (issue 49, "One SQL dialect"): a statement names a table by
// interpolating its drizzle table object (`from ${tasks} t`, `update ${tasks} t`), never as text,
// so a table renamed or dropped in db/schema fails to compile instead of failing in Postgres.
// Column names inside the SQL text stay snake_case, and CTE names are text.

/** The statements: the nouns in db/statements/, the engine they stand on in db/statements/engine/. */
const DIRS = ["../../db/statements/", "../../db/statements/engine/"].map((dir) => fileURLToPath(new URL(dir, import.meta.url)));

/** Every table db/schema declares, by its SQL name. */
const TABLES = (Object.values(schema) as unknown[]).flatMap((value) => (is(value, Table) ? [getTableName(value)] : []));

/**
 * Statement files allowed to name a table as text while they are converted: none since issue 49's
 * slices landed. A file listed here must still name one (the last test), so the list only shrinks.
 */
const PENDING = new Set<string>([]);

const names = TABLES.join("|");
/** A table named as text where SQL names a table: after from, join, into, update (delete from and exists (select ... from) included), or in sql.identifier. */
const TEXT_TABLE = new RegExp(
  `\\b(?:from|join|into|update)\\s+"?(?:${names})"?(?![\\w.$-])|sql\\.identifier\\(\\s*["'\`](?:${names})["'\`]`,
  "gi",
);

/** The source without its comments (prose says "from tasks" too). */
const code = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");

/** Where `source` names a table as text. */
const textTables = (source: string) => [...code(source).matchAll(TEXT_TABLE)].map((m) => m[0]);

/** Each statement file by its path under db/statements/ ("tasks.ts", "engine/sql.ts"). */
const files = DIRS.flatMap((dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `${dir}${name}`),
);
const offenders = Object.fromEntries(files.map((path) => [path.slice(DIRS[0]!.length), textTables(readFileSync(path, "utf8"))]));

describe("db/statements name tables through db/schema's table objects", () => {
  it("finds a table named as text, and not one interpolated, in a comment or in an import", () => {
    expect(TABLES).toEqual(expect.arrayContaining(["tasks", "events", "organisations", "idempotency_keys"]));
    expect(textTables("sql`select 1 from tasks t join labels l on true`")).toEqual(["from tasks", "join labels"]);
    expect(textTables('sql`update events set x = 1; insert into idempotency_keys (a) select 1; delete from "projects" p`')).toEqual([
      "update events",
      "into idempotency_keys",
      'from "projects"',
    ]);
    expect(textTables("sql`exists (select 1 from organisations o)`, sql.identifier('risks')")).toEqual([
      "from organisations",
      "sql.identifier('risks'",
    ]);
    expect(textTables("sql`select 1 from ${tasks} t join ${labels} l on true`")).toEqual([]);
    expect(textTables('import { x } from "./tasks.ts";\n// deleted from tasks\n/* from events */ const y = 1;')).toEqual([]);
    expect(textTables("sql`select 1 from tasks_done d, taskset s`")).toEqual([]);
  });

  it("no statement file outside the pending list names a table as text", () => {
    const found = Object.fromEntries(Object.entries(offenders).filter(([name, hits]) => !PENDING.has(name) && hits.length > 0));
    expect(found).toEqual({});
  });

  it("every file on the pending list exists and still names a table as text (a clean one leaves the list)", () => {
    const clean = [...PENDING].filter((name) => !(offenders[name]?.length ?? 0));
    expect(clean).toEqual([]);
  });
});
