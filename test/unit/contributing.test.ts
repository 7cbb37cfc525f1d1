import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The contributor's maps (CONTRIBUTING.md, test/README.md, docs/architecture.md's walks) name files, npm scripts and the
// declarations inside files; code moves under them. This holds them to the tree: every path they
// name exists (from the repository's root, or from the document's folder), every `npm run x` is a
// script of package.json, every "`NAME` of/in `file`" (or "(`NAME`, `file`)") is found in that
// file, and test/README.md's helper tables name every file of test/helpers and test/setup and only
// what each declares. A path with a placeholder (<resource>) is a pattern, not checked.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOCUMENTS = ["CONTRIBUTING.md", "test/README.md", "docs/architecture.md"];
/** What a run writes (gitignored): named as where to look, not there before a run. */
const OUTPUTS = ["test/artifacts/", "reports/"];
const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: object }).scripts);

/** A token that names a file or folder of the repository: a relative path with a slash, no placeholder. */
const PATH = /^(?![/.])[\w.@-]+(\/[\w.@-]+)*\/?$/;
const looksLikePath = (token: string) =>
  token.includes("/") && PATH.test(token) && !token.startsWith("http") && !OUTPUTS.some((output) => token.startsWith(output));

function pathsOf(text: string): string[] {
  const code = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  const links = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]!);
  return [...new Set([...code, ...links])].filter(looksLikePath);
}

/** "`RULES` in `db/statements/engine/rules.ts`", "`GRANTS` of `services/oauth-tokens.ts`", "(`callerCtes`, `db/statements/engine/caller.ts`)". */
function declarationsOf(text: string): [name: string, file: string][] {
  const pairs = [
    ...text.matchAll(/`([A-Za-z_$][\w$]*)` (?:in|of) `([\w./-]+\.\w+)`/g),
    ...text.matchAll(/\(`([A-Za-z_$][\w$]*)`, `([\w./-]+\.\w+)`\)/g),
  ];
  return pairs.map((m) => [m[1]!, m[2]!]);
}

/** The rows of a table of helpers: "| `api.ts` | `api(path, ...)`; `expectError(...)` |" -> its file(s) and the names it gives. */
function helperRows(text: string): { files: string[]; names: string[] }[] {
  return text.split("\n").flatMap((line) => {
    const row = /^\| `([\w.-]+\.(?:ts|mjs))`(?:, `([\w.-]+\.(?:ts|mjs))`)? \|(.*)$/.exec(line);
    if (!row) return [];
    const files = [row[1], row[2]].flatMap((name) => (name ? ["test/helpers", "test/setup"].map((folder) => `${folder}/${name}`) : []));
    const names = [...row[3]!.matchAll(/`([A-Za-z_]\w*)(?:\(|`)/g)].map((m) => m[1]!);
    return [{ files: files.filter((file) => existsSync(join(ROOT, file))), names }];
  });
}

const resolve = (document: string, path: string) =>
  [join(ROOT, path), join(ROOT, dirname(document), path)].find((candidate) => existsSync(candidate));

describe.each(DOCUMENTS)("%s", (document) => {
  const text = readFileSync(join(ROOT, document), "utf8");

  it("names only paths that exist", () => {
    const paths = pathsOf(text);
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((path) => !resolve(document, path))).toEqual([]);
  });

  it("links only to headings it has", () => {
    // GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
    const anchors = [...text.matchAll(/^#+ (.+)$/gm)].map((m) =>
      m[1]!
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, "")
        .replace(/ /g, "-"),
    );
    const links = [...text.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.filter((link) => !anchors.includes(link))).toEqual([]);
  });

  it("names only npm scripts package.json has", () => {
    const named = [...text.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it("finds each declaration it names in the file it names", () => {
    const declarations = declarationsOf(text);
    expect(declarations.length).toBeGreaterThan(0);
    const missing = declarations.filter(([name, file]) => {
      const found = resolve(document, file);
      return !found || !readFileSync(found, "utf8").includes(name);
    });
    expect(missing.map(([name, file]) => `${name} in ${file}`)).toEqual([]);
  });
});

describe("test/README.md's helper tables", () => {
  const rows = helperRows(readFileSync(join(ROOT, "test/README.md"), "utf8")).filter((row) => row.files.length > 0);

  it("name every file of test/helpers and test/setup", () => {
    const listed = new Set(rows.flatMap((row) => row.files));
    const present = ["test/helpers", "test/setup"].flatMap((folder) => readdirSync(join(ROOT, folder)).map((name) => `${folder}/${name}`));
    expect(present.filter((file) => !listed.has(file))).toEqual([]);
  });

  it("give only names their helper declares", () => {
    const missing = rows.flatMap(({ files, names }) => {
      const source = files.map((file) => readFileSync(join(ROOT, file), "utf8")).join("\n");
      return names.filter((name) => !source.includes(name)).map((name) => `${name} in ${files.join(", ")}`);
    });
    expect(rows.length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});
