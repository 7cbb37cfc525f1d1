import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderAsyncApiJson } from "./asyncapi.ts";
import { renderClientSchema, renderOpenApiJson } from "./render-schema.ts";

// `npm run client:generate`: writes client/openapi.json, client/asyncapi.json and
// client/schema.d.ts from the route registry.
for (const [name, text] of [
  ["openapi.json", renderOpenApiJson()],
  ["asyncapi.json", renderAsyncApiJson()],
  ["schema.d.ts", await renderClientSchema()],
] as const) {
  const target = fileURLToPath(new URL(`./${name}`, import.meta.url));
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target} (${text.split("\n").length} lines)\n`);
}
