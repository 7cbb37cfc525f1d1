import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { routes } from "../routes/index.ts";
import { renderRoutesTable, ROUTES_TABLE } from "./routes-table.ts";
import { ROOT } from "./verb-statements.ts";

// `npm run routes:generate`: writes docs/routes.md from the route registry (routes-table.ts).
const text = await renderRoutesTable(routes);
writeFileSync(join(ROOT, ROUTES_TABLE), text);
process.stdout.write(`wrote ${ROUTES_TABLE} (${routes.length} routes)\n`);
