import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

// The console's first page's JavaScript (issue 46's bar: at most 200 KiB compressed): every module
// console/index.html loads, followed through its static and dynamic imports, raw, gzip -9 and
// brotli (quality 11), as a browser would fetch them one by one. Run: node --import tsx bench/console-bytes.ts

const ROOT = fileURLToPath(new URL("../console", import.meta.url));
const ENTRY = resolve(ROOT, "js/pages/app.js");
const IMPORT = /(?:import|export)\s[^"']*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function modules(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  for (const match of readFileSync(entry, "utf8").matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    if (spec?.startsWith(".")) modules(resolve(dirname(entry), spec), seen);
  }
  return seen;
}

const files = [...modules(ENTRY)];
let raw = 0;
let gzip = 0;
let brotli = 0;
for (const file of files) {
  const bytes = readFileSync(file);
  raw += bytes.length;
  gzip += gzipSync(bytes, { level: 9 }).length;
  brotli += brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
}
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `console first page: ${files.length} modules, ${kib(raw)} raw, ${kib(gzip)} gzip, ${kib(brotli)} brotli (bar: 200 KiB compressed)`,
);
