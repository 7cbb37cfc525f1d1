import { describe, expect, it } from "vitest";
import type { CallerOutcome } from "../../db/statements/engine/caller.ts";
import type { DeleteOutcome } from "../../db/statements/engine/delete.ts";
import { RULES } from "../../db/statements/engine/rules.ts";
import type { UpdateOutcome } from "../../db/statements/engine/update.ts";
import type { Actor } from "../../domain/actor.ts";
import { DomainError } from "../../domain/errors.ts";
import { settleDelete, settleUpdate } from "../../services/settle.ts";

// services/settle.ts takes an error for every rule a statement can report (its outcome is typed by
// them): a rule a statement gains and a service does not map is a compile error, not a 500. Each
// expected type error below fails `tsc` if that stops being so.

const CALLER: CallerOutcome = { found: true, allowed: true, scopes: ["tasks.manage"], changeVersion: 7, emailUnverified: false };
const ctx = { actor: { keyHash: "a".repeat(64) } as Actor };
const context = { ctx, scope: "tasks.manage" as const, noun: "task" };
const before = { id: "r1", version: 3 };

const refusedUpdate: UpdateOutcome<typeof before, typeof RULES.transition> = {
  caller: CALLER,
  before,
  versionMatches: true,
  changesSomething: true,
  failedReferences: [],
  failedRules: [RULES.transition],
  violations: {},
  updated: null,
};

const refusedDelete: DeleteOutcome<typeof before, typeof RULES.cascade_records> = {
  caller: CALLER,
  found: true,
  versionMatches: true,
  blockers: {},
  failedRules: [RULES.cascade_records],
  deleted: null,
};

describe("settle: every rule a statement can report has its error", () => {
  it("an update's failed rule is answered by its error, and one without an error does not compile", () => {
    const rules = { [RULES.transition]: (record: typeof before) => new DomainError("invalid_transition", `from ${record.version}`) };
    expect(() => settleUpdate(refusedUpdate, { ...context, rules })).toThrow("from 3");
    // @ts-expect-error: the statement can report transition, and the context maps no error for it
    const unmapped = () => settleUpdate(refusedUpdate, context);
    // What the type forbids, run anyway: a failure no error describes (a TypeError, which the Worker answers 500).
    expect(unmapped).toThrow(TypeError);
    // @ts-expect-error: a map that leaves out a rule the statement can report does not compile either
    expect(() => settleUpdate(refusedUpdate, { ...context, rules: {} })).toThrow(TypeError);
  });

  it("a delete's failed rule is answered by its error, and one without an error does not compile", () => {
    const rules = { [RULES.cascade_records]: () => new DomainError("conflict", "too many") };
    expect(() => settleDelete(refusedDelete, { ...context, rules })).toThrow("too many");
    // @ts-expect-error: the delete can report cascade_records, and the context maps no error for it
    expect(() => settleDelete(refusedDelete, context)).toThrow(TypeError);
  });
});
