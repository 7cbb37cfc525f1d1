// Makes a Stryker mutant active inside the room's workerd (docs/mutation.md). Stryker's
// instrumented code reads the active mutant from process.env.__STRYKER_ACTIVE_MUTANT__ when its
// first module loads; partykit's workerd (a 2024 build) does not fill process.env from the
// bindings, so test/setup/realtime-server.ts substitutes the id into this module at build time
// (`partykit dev --define`), and this module, evaluated before any of realtime/ (it is the
// first import of test/mutation/realtime-entry.ts, which partykit's facade imports first), puts
// it where the instrumented code looks.
declare const __STRYKER_MUTANT_ID__: string;

const g = globalThis as unknown as { process?: { env: Record<string, string> }; __stryker__?: { activeMutant?: string } };
if (g.process) g.process.env.__STRYKER_ACTIVE_MUTANT__ = __STRYKER_MUTANT_ID__;
// Also straight into Stryker's namespace, in case an instrumented module was evaluated first.
(g.__stryker__ ??= {}).activeMutant = __STRYKER_MUTANT_ID__;
