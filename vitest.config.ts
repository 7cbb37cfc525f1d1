import { defineConfig } from "vitest/config";

// Two projects, both run by `npm test`:
// - unit (test/unit/vitest.config.ts): pure modules in Node, no harness;
// - stack: one Worker (workerd), one realtime server and one test database for the whole run,
//   started by the global setup; test files run in parallel in Node and talk to them over HTTP.
// See test/README.md.
export default defineConfig({
  test: {
    teardownTimeout: 30_000,
    // Three files at once, on the 2-core machines too: most stack files spend their time waiting
    // (on the Worker over HTTP, the room, a receiver, a window), not on the CPU. The cap of two was
    // for a 503 "Your worker restarted mid-request" under load, which was no restart: wrangler's dev
    // proxy misreading a dropped connection, which the tests no longer pass through
    // (test/helpers/worker.ts). Not four: on PGlite every file's queries wait on one session, and at
    // four the bounds on how long a write may wait (test/protection/record-stalls.test.ts) failed.
    // Figures in bench/results/test-speed.md.
    maxWorkers: 3,
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
