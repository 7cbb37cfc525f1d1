import { describe, expect, it } from "vitest";
import type { CallerOutcome } from "../../db/statements/engine/caller.ts";
import type { Actor } from "../../domain/actor.ts";
import { settleCaller } from "../../services/settle.ts";

// services/settle.ts: a person whose address their organisation requires confirmed (docs/people.md
// "Confirmed addresses") is refused before their scope or role is looked at, whatever the call needs.

const PERSON = { actor: { sessionToken: "t".repeat(32) } as Actor };
const NO_SCOPE: CallerOutcome = { found: true, allowed: false, scopes: ["tasks.read"], changeVersion: 7, emailUnverified: false };
const CALLER_OK: CallerOutcome = { ...NO_SCOPE, allowed: true };

describe("settleCaller", () => {
  it("a person whose address the organisation requires confirmed is email_unverified, before the scope and even for a call needing none", () => {
    const unconfirmed = { ...NO_SCOPE, emailUnverified: true };
    for (const need of ["tasks.manage", null, { roles: ["owner"] as const }] as const) {
      expect(() => settleCaller(unconfirmed, PERSON, need)).toThrow(
        expect.objectContaining({ code: "email_unverified", message: expect.stringContaining("POST /auth/send-verification-email") }),
      );
    }
    // A call such a person may make (anyAddress) found its caller allowed: it passes.
    expect(settleCaller({ ...CALLER_OK, emailUnverified: true }, PERSON, null)).toBeUndefined();
  });
});
