import { shared } from "./shared.mjs";

/**
 * A group of Worker- or room-side modules, killed by integration tests through the real stack
 * (workerd, partykit dev, Postgres or PGlite): Stryker's command runner runs `files` once per
 * mutant, with the mutant's id in __STRYKER_ACTIVE_MUTANT__, which the harness passes on into
 * the Worker's and the room's workerd (docs/mutation.md). `unitFiles`, when given, run first, in
 * Node and in a second: a mutant they kill never starts the stack. `--bail 1`: the first failing
 * test kills the mutant, and the run stops there.
 *
 * @param {string} group
 * @param {{ mutate: string[], files: string[], unitFiles?: string[], testNamePattern?: string }} options
 * @returns {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export function stackGroup(group, { mutate, files, unitFiles = [], testNamePattern }) {
  const filter = testNamePattern ? ` -t ${JSON.stringify(testNamePattern)}` : "";
  const unit = unitFiles.length > 0 ? `npx vitest run --project unit --bail 1 --reporter dot ${unitFiles.join(" ")} && ` : "";
  return {
    ...shared(group),
    testRunner: "command",
    commandRunner: { command: `${unit}npx vitest run --project stack --bail 1 --reporter dot${filter} ${files.join(" ")}` },
    // No per-test coverage from a command: every mutant runs the whole command.
    coverageAnalysis: "off",
    // Each run starts its own stack (a database, a Worker, a realtime server); two at a time on 2 cores.
    concurrency: 2,
    // A mutant that makes a request hang is stopped this long after a normal run would have ended.
    timeoutMS: 60_000,
    mutate,
  };
}
