import { defineConfig } from "vitest/config";

// Two projects, both run by `npm test`:
// - unit (test/unit/vitest.config.ts): pure modules in Node, no harness;
// - stack: one Worker (workerd), one realtime server and one test database for the whole run,
//   started by the global setup; test files run in parallel in Node and talk to them over HTTP.
// See test/README.md.
export default defineConfig({
  test: {
    teardownTimeout: 30_000,
    // Two files at once on the 2-core machines: with three, the whole run's load made workerd
    // restart the harness Worker mid-request now and then (503 "Your worker restarted").
    maxWorkers: 2,
    projects: [
      "test/unit/vitest.config.ts",
      {
        test: {
          name: "stack",
          include: ["test/**/*.test.ts"],
          exclude: ["test/unit/**"],
          globalSetup: ["test/setup/global-setup.ts"],
          setupFiles: ["test/setup/per-file.ts"],
          // Starting workerd and migrating take a few seconds on a 2-core machine.
          hookTimeout: 60_000,
          testTimeout: 20_000,
        },
      },
    ],
  },
});
