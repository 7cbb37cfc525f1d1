import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { PROJECT_ROOT } from "./lib/paths.ts";

// `npm run loc`: the repository's lines per top-level folder, hand-written apart from generated.
// A file is generated when .gitattributes marks it linguist-generated (the typed client, the
// OpenAPI and AsyncAPI documents, drizzle's snapshots, bench results, the lock file); the files are
// git's (tracked, and new ones not ignored), so node_modules and local state never count. Lines are
// newline-separated lines, blank and comment lines included. Also lists the hand-written code files
// over 300 lines, which must say in their opening comment why they are one piece.

const CODE = new Set([".ts", ".js", ".sql", ".html", ".css"]);
const LONG_FILE = 300;

const git = (args: string[], input?: string) =>
  execFileSync("git", args, { cwd: PROJECT_ROOT, encoding: "utf8", input, maxBuffer: 64 * 1024 * 1024 });
const files = git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
  .split("\0")
  // Files only: a worktree's node_modules may be an untracked symlink to a folder.
  .filter((file) => file && statSync(join(PROJECT_ROOT, file), { throwIfNoEntry: false })?.isFile());
const generated = new Set<string>();
// check-attr -z answers path, attribute, value, each ended by a NUL.
const attributes = git(["check-attr", "-z", "--stdin", "linguist-generated"], files.join("\0")).split("\0");
for (let i = 0; i + 2 < attributes.length; i += 3) if (attributes[i + 2] === "true") generated.add(attributes[i]!);

type Counts = { code: number; docs: number; other: number; generated: number };
const folders = new Map<string, Counts>();
const long: [string, number][] = [];
for (const file of files) {
  const text = readFileSync(join(PROJECT_ROOT, file));
  if (text.includes(0)) continue; // images and other binaries
  const lines = text.toString("utf8").split("\n").length - (text.at(-1) === 0x0a ? 1 : 0);
  const folder = file.includes("/") ? file.slice(0, file.indexOf("/")) : "(top level)";
  const counts = folders.get(folder) ?? { code: 0, docs: 0, other: 0, generated: 0 };
  folders.set(folder, counts);
  const kind = generated.has(file) ? "generated" : CODE.has(extname(file)) ? "code" : extname(file) === ".md" ? "docs" : "other";
  counts[kind] += lines;
  if (kind === "code" && lines > LONG_FILE) long.push([file, lines]);
}

const total: Counts = { code: 0, docs: 0, other: 0, generated: 0 };
const rows = [...folders].sort(([a], [b]) => a.localeCompare(b));
const table = [
  ["folder", "code", "docs", "other", "generated"],
  ...rows.map(([folder, counts]) => {
    for (const key of Object.keys(total) as (keyof Counts)[]) total[key] += counts[key];
    return [folder, counts.code, counts.docs, counts.other, counts.generated].map(String);
  }),
  ["total", total.code, total.docs, total.other, total.generated].map(String),
];
const longFiles = long.sort((a, b) => b[1] - a[1]).map(([file, lines]) => `  ${String(lines).padStart(5)}  ${file}`);
process.stdout.write(
  [
    ...table.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(14) : cell.padStart(10))).join("")),
    "",
    "hand-written: code, docs (.md) and other (JSON, YAML, config); generated: marked linguist-generated in .gitattributes",
    "",
    `code files over ${LONG_FILE} lines (each says why in its opening comment):`,
    ...longFiles,
  ].join("\n") + "\n",
);
