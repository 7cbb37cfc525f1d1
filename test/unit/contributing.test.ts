import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The contributor's maps (CONTRIBUTING.md, test/README.md) name files, npm scripts and the
// declarations inside files; code moves under them. This holds them to the tree: every path they
// name exists (from the repository's root, or from the document's folder), every `npm run x` is a
// script of package.json, and every "`NAME` of/in `file`" (or "(`NAME`, `file`)") is found in
// that file. A path with a placeholder (<resource>) is a pattern, not checked.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOCUMENTS = ["CONTRIBUTING.md"];
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

/** "`RULES` in `db/statements/rules.ts`", "`GRANTS` of `services/oauth-tokens.ts`", "(`callerCtes`, `db/statements/caller.ts`)". */
function declarationsOf(text: string): [name: string, file: string][] {
  const pairs = [
    ...text.matchAll(/`([A-Za-z_$][\w$]*)` (?:in|of) `([\w./-]+\.\w+)`/g),
    ...text.matchAll(/\(`([A-Za-z_$][\w$]*)`, `([\w./-]+\.\w+)`\)/g),
  ];
  return pairs.map((m) => [m[1]!, m[2]!]);
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
