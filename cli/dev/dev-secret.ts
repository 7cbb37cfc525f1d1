import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { DATA_DIR, DEV_SECRET_FILE } from "../lib/paths.ts";

/**
 * REALTIME_SECRET for development: the Worker and the realtime server get the same value.
 * Generated once and kept in .data/dev-secret, so tools and tests can publish to a running room.
 */
export function loadDevSecret(): string {
  try {
    const stored = readFileSync(DEV_SECRET_FILE, "utf8").trim();
    if (stored) return stored;
  } catch {
    // First run: no secret yet.
  }
  const secret = randomBytes(32).toString("base64url");
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(DEV_SECRET_FILE, secret + "\n", { mode: 0o600 });
  return secret;
}
