import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderClientSchema } from "./render-schema.ts";

// `npm run client:generate`: writes client/schema.d.ts from the route registry.
const target = fileURLToPath(new URL("./schema.d.ts", import.meta.url));
const schema = await renderClientSchema();
writeFileSync(target, schema);
process.stdout.write(`wrote ${target} (${schema.split("\n").length} lines)\n`);
