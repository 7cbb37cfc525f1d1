import { join } from "node:path";
import { fileURLToPath } from "node:url";

// Resolved from this file, not the working directory, so the CLI works from any folder of the checkout.
export const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Local state of development tools; gitignored. */
export const DATA_DIR = join(PROJECT_ROOT, ".data");
export const PGLITE_DIR = join(DATA_DIR, "pglite");
/** Held by the one process that has PGlite's data directory open. */
export const PGLITE_LOCK_FILE = join(DATA_DIR, "pglite.lock");
/** Written by a running `npm run dev`, so the CLI can reach its database. */
export const DEV_STATE_FILE = join(DATA_DIR, "dev.json");
/** The shared secret between the Worker and the realtime server in development. */
export const DEV_SECRET_FILE = join(DATA_DIR, "dev-secret");
/** The demo organisation's API key, kept because the database stores only its hash. */
export const DEMO_FILE = join(DATA_DIR, "demo.json");

export function localBin(name: string): string {
  return join(PROJECT_ROOT, "node_modules", ".bin", name);
}
