import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The unit project: pure modules tested in Node with no harness (no database, no Worker, no
// room), against real parts (node:http receivers, the standardwebhooks verifier, Hono). A
// project of vitest.config.ts, and on its own the config of `npm run mutation`'s fast group
// (test/mutation/unit.config.mjs), which runs it once per mutant.
export default defineConfig({
  test: {
    name: "unit",
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/unit/**/*.test.ts"],
    testTimeout: 20_000,
  },
});
