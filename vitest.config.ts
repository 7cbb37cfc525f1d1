import { defineConfig } from "vitest/config";

// One Worker (workerd) and one test database for the whole run, started by the global setup;
// test files run in parallel in Node and talk to it over HTTP. See test/README.md.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/setup/global-setup.ts"],
    setupFiles: ["test/setup/per-file.ts"],
    // Starting workerd and migrating take a few seconds on a 2-core machine.
    hookTimeout: 60_000,
    testTimeout: 20_000,
    teardownTimeout: 30_000,
    // Tests wait on HTTP and Postgres more than on the CPU, so more files than cores run at once.
    maxWorkers: 3,
    // CI shares two cores with workerd, partykit, Postgres and Chromium: a test that fails on a
    // timing edge gets one more try there (vitest reports it as retried, so a flake stays visible).
    // Locally a failure is a failure.
    retry: process.env.CI ? 1 : 0,
  },
});
