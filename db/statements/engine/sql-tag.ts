// From drizzle-orm/sql/sql, not the package's index: db/client.ts loads this at start-up (acknowledgements.ts).
import { SQL, StringChunk, sql as drizzleSql } from "drizzle-orm/sql/sql";

// drizzle's `sql` tag, `sql.raw` and `sql.join`, making the same trees without the scan drizzle's
// SQL constructor runs over every chunk: it tests each one for a Table through its prototype chain
// (`is`), to fill `usedTables`, which only drizzle's query cache reads and these statements never
// reach. A write's statement is a few hundred fragments, built on every call; made here, a
// fragment costs about a sixth of drizzle's (bench/results/README.md, "What was measured and kept"). The
// trees are drizzle's own classes, chunk for chunk, so drizzle's compiler and ours
// (compile.ts) read them as before, and the tests' CHECK_STATEMENTS compares the two on every
// statement. db/statements import `sql` from here (a lint rule says so).

/** An SQL whose chunks are `chunks`, as `new SQL(chunks)` makes it, without the Table scan. */
function fromChunks(chunks: unknown[]): SQL {
  const query = new SQL([]);
  (query as { queryChunks: unknown[] }).queryChunks = chunks;
  return query;
}

function tag(strings: TemplateStringsArray, ...params: unknown[]): SQL {
  const chunks: unknown[] = params.length > 0 || strings[0] !== "" ? [new StringChunk(strings[0]!)] : [];
  for (let i = 0; i < params.length; i++) chunks.push(params[i], new StringChunk(strings[i + 1]!));
  return fromChunks(chunks);
}

function raw(text: string): SQL {
  return fromChunks([new StringChunk(text)]);
}

function join(chunks: unknown[], separator?: SQL | string): SQL {
  const joined: unknown[] = [];
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0 && separator !== undefined) joined.push(separator);
    joined.push(chunks[i]);
  }
  return fromChunks(joined);
}

/** drizzle's `sql`, with the tag, `raw` and `join` made as above and the rest of its helpers as they are. */
export const sql = Object.assign(tag, drizzleSql, { raw, join }) as unknown as typeof drizzleSql;
