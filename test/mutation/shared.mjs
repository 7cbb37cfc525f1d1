// Settings every group of `npm run mutation` shares (docs/mutation.md). Each group is one Stryker
// run with a config of its own in this folder; test/mutation/run.ts runs them in turn.

/** @param {string} group @returns {Partial<import("@stryker-mutator/api/core").PartialStrykerOptions>} */
export function shared(group) {
  return {
    packageManager: "npm",
    appendPlugins: ["./test/mutation/ignore-messages.mjs"],
    ignorers: ["DomainErrorMessage"],
    reporters: ["clear-text", "progress", "html", "json"],
    htmlReporter: { fileName: `reports/mutation/${group}.html` },
    jsonReporter: { fileName: `reports/mutation/${group}.json` },
    clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
    tempDirName: ".stryker-tmp",
    cleanTempDir: true,
    // What the sandbox copy of the project leaves out: local state, reports, earlier sandboxes.
    ignorePatterns: [".data", ".wrangler", ".partykit", "reports", "test/artifacts", "bench/results", "bench/.before", ".stryker-tmp"],
    thresholds: { high: 95, low: 90, break: null },
    incremental: false,
    warnings: { slow: false },
  };
}
