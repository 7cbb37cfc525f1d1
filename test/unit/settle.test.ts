import { describe, expect, it } from "vitest";
import type { CallerOutcome } from "../../db/statements/engine/caller.ts";
import type { CreateOutcome } from "../../db/statements/engine/create.ts";
import type { DeleteOutcome } from "../../db/statements/engine/delete.ts";
import { RULES, type RuleName } from "../../db/statements/engine/rules.ts";
import type { UpdateOutcome } from "../../db/statements/engine/update.ts";
import type { Actor } from "../../domain/actor.ts";
import { DomainError } from "../../domain/errors.ts";
import { settleCaller, settleCreate, settleDelete, settleUpdate } from "../../services/settle.ts";

// services/settle.ts: a statement's outcome turned into the answer or the refusal, in the order of
// checks every call follows (docs/api.md "Order of checks"): key -> scope -> ... -> If-Match.

interface Rec {
  id: string;
  version: number;
}

const API = { actor: { keyHash: "a".repeat(64) } as Actor };
const SYSTEM = { actor: { orgId: "01890000-0000-7000-8000-000000000001" } as Actor };
const PERSON = { actor: { sessionToken: "t".repeat(32) } as Actor };
const PASSED = { found: true, allowed: true, emailUnverified: false, changeVersion: 7 };
const CALLER_OK: CallerOutcome = { ...PASSED, scopes: ["tasks.read", "tasks.manage"] };
const NO_KEY: CallerOutcome = { ...PASSED, found: false, allowed: false, scopes: [], changeVersion: 0 };
const NO_SCOPE: CallerOutcome = { ...PASSED, allowed: false, scopes: ["tasks.read"] };
const RECORD: Rec = { id: "r1", version: 3 };
const CREATED = { record: { id: "r2", version: 1 }, event: null };

function caught(action: () => unknown): DomainError {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("no DomainError was thrown");
}

describe("settleCaller", () => {
  it("passes a key that exists and holds the scope", () => {
    expect(settleCaller(CALLER_OK, API, "tasks.manage")).toBeUndefined();
  });

  it("an unknown or revoked key is invalid_key, whatever the scope", () => {
    for (const scope of ["tasks.manage", null] as const) {
      const error = caught(() => settleCaller(NO_KEY, API, scope));
      expect(error.code).toBe("invalid_key");
      expect(error.message).toBe("the API key is unknown or has been revoked");
      expect(error.details).toEqual({});
    }
    const app = caught(() => settleCaller(NO_KEY, { actor: { accessTokenHash: "b".repeat(64) } as Actor }, null));
    expect([app.code, app.message]).toEqual(["invalid_key", "the access token is unknown, expired or revoked"]);
    // Even when the statement said "allowed" of a key it did not find.
    expect(caught(() => settleCaller({ ...NO_KEY, allowed: true }, API, "tasks.manage")).code).toBe("invalid_key");
  });

  it("a system caller whose organisation does not exist is not_found naming orgId", () => {
    const error = caught(() => settleCaller(NO_KEY, SYSTEM, "tasks.manage"));
    expect(error.code).toBe("not_found");
    expect(error.message).toBe("organisation not found");
    expect(error.details).toEqual({ field: "orgId" });
  });

  it("a key without the scope is insufficient_scope naming it", () => {
    const error = caught(() => settleCaller(NO_SCOPE, API, "tasks.manage"));
    expect(error.code).toBe("insufficient_scope");
    expect(error.message).toBe("this call needs the tasks.manage scope");
    expect(error.details).toEqual({ scope: "tasks.manage" });
  });

  it("a person whose session has ended, or who is no longer a member, is unauthorized", () => {
    const error = caught(() => settleCaller(NO_KEY, PERSON, "tasks.manage"));
    expect(error.code).toBe("unauthorized");
    expect(error.details).toEqual({});
  });

  it("a person without a role the call needs is insufficient_role naming the roles", () => {
    const error = caught(() => settleCaller(NO_SCOPE, PERSON, { roles: ["owner", "admin"] }));
    expect(error.code).toBe("insufficient_role");
    expect(error.details).toEqual({ roles: ["owner", "admin"] });
  });

  it("a call that needs no scope (null) passes any valid key", () => {
    expect(settleCaller(NO_SCOPE, API, null)).toBeUndefined();
  });
});

function create(overrides: Partial<CreateOutcome<Rec>>): CreateOutcome<Rec> {
  return { caller: CALLER_OK, parentFound: true, failedReferences: [], created: CREATED, replay: null, ...overrides };
}
const createContext = (idempotency?: { key: string; requestHash: string }) => ({
  ctx: API,
  scope: "tasks.manage" as const,
  noun: "task",
  idempotency,
});

describe("settleCreate: the caller, then Idempotency-Key", () => {
  it("checks the caller before anything else, a replay included", () => {
    const replay = { requestHash: "h1", record: RECORD, changeVersion: 5 };
    expect(caught(() => settleCreate(create({ caller: NO_KEY, replay }), createContext({ key: "k", requestHash: "h1" }))).code).toBe(
      "invalid_key",
    );
    expect(caught(() => settleCreate(create({ caller: NO_SCOPE, replay }), createContext({ key: "k", requestHash: "h1" }))).code).toBe(
      "insufficient_scope",
    );
    expect(caught(() => settleCreate(create({ caller: NO_SCOPE, parentFound: false }), createContext())).code).toBe("insufficient_scope");
  });

  it("the same request again answers the stored record, replayed, with no event", () => {
    const result = settleCreate(
      create({ created: null, replay: { requestHash: "h1", record: RECORD, changeVersion: 5 } }),
      createContext({ key: "k", requestHash: "h1" }),
    );
    expect(result).toEqual({ record: RECORD, event: null, replayed: true });
  });

  it("a replay is answered before the other checks: they held when it was first made", () => {
    const result = settleCreate(
      create({
        parentFound: false,
        failedReferences: ["projectId"],
        created: null,
        replay: { requestHash: "h1", record: RECORD, changeVersion: 5 },
      }),
      createContext({ key: "k", requestHash: "h1" }),
    );
    expect(result.replayed).toBe(true);
  });

  it("another request with the same Idempotency-Key is idempotency_mismatch naming the header", () => {
    const error = caught(() =>
      settleCreate(
        create({ replay: { requestHash: "h1", record: RECORD, changeVersion: 5 } }),
        createContext({ key: "k", requestHash: "h2" }),
      ),
    );
    expect(error.code).toBe("idempotency_mismatch");
    expect(error.message).toBe("this Idempotency-Key was used with a different request");
    expect(error.details).toEqual({ field: "Idempotency-Key" });
  });

  it("a stored response found for a request without the key is never replayed", () => {
    expect(
      caught(() => settleCreate(create({ replay: { requestHash: "h1", record: RECORD, changeVersion: 5 } }), createContext())).code,
    ).toBe("idempotency_mismatch");
  });

  it("no stored response: the record created, not marked replayed", () => {
    const result = settleCreate(create({}), createContext({ key: "k", requestHash: "h1" }));
    expect(result).toBe(CREATED);
    expect(result.replayed).toBeUndefined();
  });

  it("then the parent and the references", () => {
    expect(caught(() => settleCreate(create({ parentFound: false }), { ...createContext(), parentNoun: "project" })).message).toBe(
      "project not found",
    );
    expect(caught(() => settleCreate(create({ parentFound: false }), createContext())).message).toBe("parent not found");
    const reference = caught(() => settleCreate(create({ failedReferences: ["assigneeId", "projectId"] }), createContext()));
    expect(reference.code).toBe("invalid_reference");
    expect(reference.details).toEqual({ field: "assigneeId" });
    expect(() => settleCreate(create({ created: null }), createContext())).toThrow("insert returned no row although every check held");
  });
});

function update<Rules extends RuleName = never>(overrides: Partial<UpdateOutcome<Rec, Rules>>): UpdateOutcome<Rec, Rules> {
  return {
    caller: CALLER_OK,
    before: RECORD,
    versionMatches: true,
    changesSomething: true,
    failedReferences: [],
    failedRules: [],
    violations: {},
    updated: { record: { ...RECORD, version: 4 }, event: null },
    ...overrides,
  };
}
const updateContext = { ctx: API, scope: "tasks.manage" as const, noun: "task" };

describe("settleUpdate: the caller, then If-Match", () => {
  it("checks the caller first", () => {
    expect(caught(() => settleUpdate(update({ caller: NO_KEY, before: null, versionMatches: false }), updateContext)).code).toBe(
      "invalid_key",
    );
    expect(caught(() => settleUpdate(update({ caller: NO_SCOPE, versionMatches: false }), updateContext)).code).toBe("insufficient_scope");
  });

  it("a version that does not match is precondition_failed with the current version, after existence and references", () => {
    expect(caught(() => settleUpdate(update({ before: null, versionMatches: false }), updateContext)).code).toBe("not_found");
    expect(caught(() => settleUpdate(update({ failedReferences: ["ownerId"], versionMatches: false }), updateContext)).code).toBe(
      "invalid_reference",
    );
    const error = caught(() => settleUpdate(update({ versionMatches: false, updated: null }), updateContext));
    expect(error.code).toBe("precondition_failed");
    expect(error.message).toBe("If-Match does not match the current version");
    expect(error.details).toEqual({ currentVersion: 3 });
  });

  it("If-Match is checked before the rules and before the write's own answer", () => {
    const rules = { [RULES.transition]: () => new DomainError("invalid_transition", "no") };
    expect(
      caught(() => settleUpdate(update({ versionMatches: false, failedRules: [RULES.transition] }), { ...updateContext, rules })).code,
    ).toBe("precondition_failed");
    expect(caught(() => settleUpdate(update({ versionMatches: false }), updateContext)).code).toBe("precondition_failed");
  });

  it("a matching version goes on to the rules and the write", () => {
    const rules = { [RULES.transition]: (before: Rec) => new DomainError("invalid_transition", `from ${before.version}`) };
    expect(caught(() => settleUpdate(update({ failedRules: [RULES.transition] }), { ...updateContext, rules })).message).toBe("from 3");
    expect(settleUpdate(update({}), updateContext).record.version).toBe(4);
    expect(settleUpdate(update({ updated: null, changesSomething: false }), updateContext)).toEqual({ record: RECORD, event: null });
    expect(caught(() => settleUpdate(update({ updated: null }), updateContext)).code).toBe("conflict");
  });
});

function remove(overrides: Partial<DeleteOutcome<Rec>>): DeleteOutcome<Rec> {
  return {
    caller: CALLER_OK,
    found: true,
    versionMatches: true,
    blockers: {},
    failedRules: [],
    deleted: { record: RECORD, event: null },
    ...overrides,
  };
}

describe("settleDelete: the caller, then If-Match", () => {
  it("checks the caller first", () => {
    expect(caught(() => settleDelete(remove({ caller: NO_KEY, found: false, versionMatches: false }), updateContext)).code).toBe(
      "invalid_key",
    );
    expect(caught(() => settleDelete(remove({ caller: NO_SCOPE, versionMatches: false }), updateContext)).code).toBe("insufficient_scope");
  });

  it("a version that does not match is precondition_failed, after existence, before the blockers", () => {
    expect(caught(() => settleDelete(remove({ found: false, versionMatches: false }), updateContext)).code).toBe("not_found");
    const error = caught(() => settleDelete(remove({ versionMatches: false, blockers: { tasks: 2 } }), updateContext));
    expect(error.code).toBe("precondition_failed");
    expect(error.message).toBe("If-Match does not match the current version");
    expect(caught(() => settleDelete(remove({ versionMatches: false }), updateContext)).code).toBe("precondition_failed");
  });

  it("a matching version goes on to the blockers and the delete", () => {
    expect(caught(() => settleDelete(remove({ blockers: { tasks: 2, financialEntries: 1 } }), updateContext)).message).toBe(
      "the task still has 2 tasks and 1 financial entry; remove or move them first",
    );
    expect(settleDelete(remove({ blockers: { tasks: 0 } }), updateContext).record).toBe(RECORD);
    expect(caught(() => settleDelete(remove({ deleted: null }), updateContext)).code).toBe("conflict");
  });
});

describe("the changeVersion an answer carries (observe)", () => {
  const listening = () => {
    const seen: number[] = [];
    return { seen, ctx: { ...API, observe: (changeVersion: number) => seen.push(changeVersion) } };
  };
  const event = (changeVersion: number) => ({ changeVersion }) as never;

  it("a read: the organisation's counter as its statement saw it; a refusal observes nothing", () => {
    const { seen, ctx } = listening();
    settleCaller(CALLER_OK, ctx, "tasks.read");
    expect(seen).toEqual([7]);
    caught(() => settleCaller(NO_SCOPE, ctx, "tasks.manage"));
    caught(() => settleCaller(NO_KEY, ctx, null));
    expect(seen).toEqual([7]);
  });

  it("a write: last the value it produced; a no-op: the current one; a replay: the first answer's", () => {
    const created = listening();
    settleCreate(create({ created: { record: RECORD, event: event(8) } }), { ...createContext(), ctx: created.ctx });
    expect(created.seen.at(-1)).toBe(8);

    const replayed = listening();
    settleCreate(create({ created: null, replay: { requestHash: "h1", record: RECORD, changeVersion: 5 } }), {
      ...createContext({ key: "k", requestHash: "h1" }),
      ctx: replayed.ctx,
    });
    expect(replayed.seen.at(-1)).toBe(5);

    // The first answer moved no changeVersion (a write that changed nothing): the replay observes only the current one.
    const replayedNoop = listening();
    settleCreate(create({ created: null, replay: { requestHash: "h1", record: RECORD, changeVersion: null } }), {
      ...createContext({ key: "k", requestHash: "h1" }),
      ctx: replayedNoop.ctx,
    });
    expect(replayedNoop.seen).toEqual([7]);

    const noop = listening();
    settleUpdate(update({ updated: null, changesSomething: false }), { ...updateContext, ctx: noop.ctx });
    expect(noop.seen).toEqual([7]);

    const removed = listening();
    settleDelete(remove({ deleted: { record: RECORD, event: event(9) } }), { ...updateContext, ctx: removed.ctx });
    expect(removed.seen.at(-1)).toBe(9);
  });
});
