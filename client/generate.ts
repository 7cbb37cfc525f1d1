import { writeFileSync } from "node:fs";
import { committed, fromRoot, GENERATED } from "./generated.ts";

// `npm run generate`: writes every generated file (client/generated.ts lists them and how each is
// rendered). `npm run generate -- --check` writes nothing and fails naming each file that is stale.
const check = process.argv.includes("--check");
const stale: string[] = [];
for (const { file, render } of GENERATED) {
  const current = committed(file);
  const text = await render(current);
  if (text === current) continue;
  if (check) stale.push(file);
  else {
    writeFileSync(fromRoot(file), text);
    process.stdout.write(`wrote ${file} (${text.split("\n").length} lines)\n`);
  }
}
if (stale.length) {
  process.stderr.write(`stale, run \`npm run generate\` and commit: ${stale.join(", ")}\n`);
  process.exit(1);
}
if (check) process.stdout.write(`all ${GENERATED.length} generated files are current\n`);
