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
    "services/settle.ts:44-58",
    "services/settle.ts:76-81",
    "services/settle.ts:130-130",
    "services/settle.ts:134-134",
    "services/settle.ts:147-147",
    "services/settle.ts:149-149",
    "services/refusals.ts:13-28",
  ],
};
