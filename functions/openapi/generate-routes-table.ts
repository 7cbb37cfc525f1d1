import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadRoutes } from "../routes/index.ts";
import { renderRouteManifest, ROUTE_MANIFEST_FILE } from "../routes/render-manifest.ts";
import { renderRoutesTable, ROUTES_TABLE } from "./routes-table.ts";
import { ROOT } from "./verb-statements.ts";

// `npm run routes:generate`: writes docs/routes.md (routes-table.ts) and the app's manifest of
// routes (routes/render-manifest.ts) from the route registry.
const routes = await loadRoutes();
writeFileSync(join(ROOT, ROUTES_TABLE), await renderRoutesTable(routes));
writeFileSync(join(ROOT, ROUTE_MANIFEST_FILE), await renderRouteManifest());
process.stdout.write(`wrote ${ROUTES_TABLE} and ${ROUTE_MANIFEST_FILE} (${routes.length} routes)\n`);
