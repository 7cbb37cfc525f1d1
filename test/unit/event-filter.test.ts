import { describe, expect, it } from "vitest";
import { isOwn, matchesFilter, NO_FILTER, parseTypes, projectOf, type EventFilter } from "../../domain/event-filter.ts";
import type { OpsEvent } from "../../domain/events.ts";

// domain/event-filter.ts: the feed's one filter, which sockets and webhooks apply in the room and
// GET /v1/events applies in SQL (db/statements/engine/events.ts, tested through the stack in test/sync/).

const P1 = "0190a5b2-0000-7000-8000-000000000001";
const P2 = "0190a5b2-0000-7000-8000-000000000002";
const KEY = "0190a5b2-0000-7000-8000-0000000000aa";
const USER = "0190a5b2-0000-7000-8000-0000000000bb";

const event = (type: string, data: Record<string, unknown>, actor: OpsEvent["actor"] = { type: "key", id: KEY, name: "sync" }) => ({
  type,
  data,
  actor,
});
const filter = (overrides: Partial<EventFilter>): EventFilter => ({ ...NO_FILTER, ...overrides });

describe("projectOf", () => {
  it("is a project's own id, or the projectId of a record under one; null for personnel", () => {
    expect(projectOf(event("project.updated", { id: P1 }))).toBe(P1);
    for (const type of ["task.created", "milestone.updated", "risk.deleted", "issue.created", "financialEntry.updated"]) {
      expect(projectOf(event(type, { id: P2, projectId: P1 })), type).toBe(P1);
    }
    expect(projectOf(event("personnel.created", { id: P1 }))).toBeNull();
    expect(projectOf(event("financialEntry.created", { id: P2, projectId: null }))).toBeNull();
  });
});

describe("isOwn", () => {
  it("matches the same key, or the same person; never opsroom itself", () => {
    expect(isOwn({ keyId: KEY }, event("task.created", {}))).toBe(true);
    expect(isOwn({ keyId: USER }, event("task.created", {}))).toBe(false);
    expect(isOwn({ userId: USER }, event("task.created", {}, { type: "user", id: USER, name: "Ada" }))).toBe(true);
    // A key's id that happens to equal a person's id is still another actor.
    expect(isOwn({ userId: KEY }, event("task.created", {}))).toBe(false);
    expect(isOwn({ keyId: null, userId: null }, event("task.created", {}, { type: "system", id: null, name: "opsroom" }))).toBe(false);
  });
});

describe("matchesFilter", () => {
  const taskOfP1 = event("task.updated", { id: P2, projectId: P1 });

  it("no filter keeps everything", () => {
    expect(matchesFilter(NO_FILTER, taskOfP1)).toBe(true);
  });

  it("each condition narrows; all of them must hold", () => {
    expect(matchesFilter(filter({ types: ["task.*"] }), taskOfP1)).toBe(true);
    expect(matchesFilter(filter({ types: ["project.*", "task.created"] }), taskOfP1)).toBe(false);
    expect(matchesFilter(filter({ types: ["*"] }), taskOfP1)).toBe(true);
    expect(matchesFilter(filter({ projectId: P1 }), taskOfP1)).toBe(true);
    expect(matchesFilter(filter({ projectId: P2 }), taskOfP1)).toBe(false);
    expect(matchesFilter(filter({ recordId: P2 }), taskOfP1)).toBe(true);
    expect(matchesFilter(filter({ recordId: P1 }), taskOfP1)).toBe(false);
    expect(matchesFilter(filter({ excludeOwn: { keyId: KEY } }), taskOfP1)).toBe(false);
    expect(matchesFilter(filter({ excludeOwn: { userId: USER } }), taskOfP1)).toBe(true);
    expect(matchesFilter(filter({ types: ["task.*"], projectId: P1, recordId: P2 }), taskOfP1)).toBe(true);
    expect(matchesFilter(filter({ types: ["task.*"], projectId: P1, excludeOwn: { keyId: KEY } }), taskOfP1)).toBe(false);
  });
});

describe("parseTypes", () => {
  it("splits and trims the list; names the first entry that is not a pattern, an empty one included", () => {
    expect(parseTypes(" task.* , project.updated")).toEqual({ types: ["task.*", "project.updated"], invalid: null });
    expect(parseTypes("task.*,").invalid).toBe("");
    expect(parseTypes("").invalid).toBe("");
    expect(parseTypes("task.*,tasks.*,nope").invalid).toBe("tasks.*");
    expect(parseTypes("task.created.now").invalid).toBe("task.created.now");
  });
});
