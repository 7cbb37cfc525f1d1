// The realtime server's entry point while a mutant is active (docs/mutation.md): the same
// server and rooms as partykit.json's, after a prelude that makes the mutant active in the
// room's workerd. test/setup/realtime-server.ts runs it only when __STRYKER_ACTIVE_MUTANT__ is set.
import "./realtime-mutant.ts";

export { default } from "../../realtime/server.ts";
