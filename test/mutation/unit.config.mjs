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
    // replay and If-Match, with the refusals they give (refusals.ts); the rest (references,
    // workflow rules, blockers) is not a security edge.
    "services/settle.ts:35-49",
    "services/settle.ts:67-72",
    "services/settle.ts:120-120",
    "services/settle.ts:124-124",
    "services/settle.ts:137-137",
    "services/settle.ts:139-139",
    "services/refusals.ts:13-24",
  ],
};
