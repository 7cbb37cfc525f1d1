import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { PROJECT_ROOT } from "./lib/paths.ts";

// Run by `npm install` / `npm ci` (package.json "postinstall"). GET /docs renders Scalar's
// standalone bundle, which by default comes from a CDN; machines here (and any offline laptop)
// cannot reach one, so the bundle is served by the Worker's static assets instead. It is copied
// from node_modules rather than committed: 4 MB that changes with every upgrade of the package,
// and the copy always matches the version package-lock.json pins. console/vendor/ is gitignored.

const COPIES = [
  {
    from: join(PROJECT_ROOT, "node_modules/@scalar/api-reference/dist/browser/standalone.js"),
    // Must match SCALAR_BUNDLE_PATH in functions/openapi/docs-page.ts.
    to: join(PROJECT_ROOT, "console/vendor/scalar/api-reference.js"),
  },
];

for (const { from, to } of COPIES) {
  if (!existsSync(from)) {
    // An install without the package (npm install --omit of it): /docs would render without its script.
    process.stderr.write(`copy-vendor-assets: ${from} is missing; GET /docs will not render\n`);
    process.exitCode = 1;
    continue;
  }
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}
