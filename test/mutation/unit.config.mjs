import { shared } from "./shared.mjs";

// The pure modules, killed by the unit project (test/unit/, vitest in Node, no harness), with
// per-test coverage: each mutant runs only the tests that reach it.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  ...shared("unit"),
  testRunner: "vitest",
  vitest: { configFile: "test/unit/vitest.config.ts" },
  coverageAnalysis: "perTest",
  concurrency: 2,
  mutate: [
    "domain/crypto/api-keys.ts",
    "domain/scopes.ts",
    "domain/crypto/realtime-token.ts",
    "domain/webhook-urls.ts",
    "realtime/webhooks/delivery.ts",
    "functions/http/preconditions.ts",
    // settleCaller, and in settleCreate/-Update/-Delete the caller check, the Idempotency-Key
    // replay and If-Match; the rest of settle.ts (references, workflow rules, blockers) is not a
    // security edge.
    "services/settle.ts:23-29",
    "services/settle.ts:50-56",
    "services/settle.ts:68-68",
    "services/settle.ts:72-74",
    "services/settle.ts:84-86",
  ],
};
