import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderAsyncApiJson } from "./asyncapi.ts";
import { renderConsoleForms } from "./console-forms.ts";
import { renderClientSchema, renderOpenApiJson } from "./render-schema.ts";

// `npm run client:generate`: writes client/openapi.json, client/asyncapi.json and
// client/schema.d.ts from the route registry, and the console's form schemas from the document.
const openApiJson = renderOpenApiJson();
for (const [name, text] of [
  ["openapi.json", openApiJson],
  ["asyncapi.json", renderAsyncApiJson()],
  ["schema.d.ts", await renderClientSchema()],
  ["../console/js/lib/forms.generated.js", renderConsoleForms(openApiJson)],
] as const) {
  const target = fileURLToPath(new URL(`./${name}`, import.meta.url));
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target} (${text.split("\n").length} lines)\n`);
}
