import { describe, expect, it } from "vitest";
import { ALL_SCOPES, expandScopes, firstMissingScope, isScope, parseScopeList, SCOPES, type Scope } from "../../domain/scopes.ts";

// domain/scopes.ts: the closed set of scopes, .manage implying .read, and which scope a key lacks.

const CATALOGUE = [
  "organisation.read",
  "organisation.manage",
  "projects.read",
  "projects.manage",
  "tasks.read",
  "tasks.manage",
  "risks.read",
  "risks.manage",
  "issues.read",
  "issues.manage",
  "financials.read",
  "financials.manage",
  "webhooks.read",
  "webhooks.manage",
  "audit.read",
];

describe("the catalogue", () => {
  it("is exactly the fifteen scopes of docs/api.md, in order, each with its label", () => {
    expect(ALL_SCOPES).toEqual(CATALOGUE);
    expect(SCOPES["tasks.manage"]).toBe("Create and change tasks");
    expect(SCOPES["webhooks.read"]).toBe("Read webhooks");
    for (const scope of ALL_SCOPES) expect(SCOPES[scope]).toMatch(/^[A-Z]/);
  });

  it("isScope knows its own and nothing else, not even Object's properties", () => {
    for (const scope of CATALOGUE) expect(isScope(scope)).toBe(true);
    for (const other of [
      "",
      "tasks",
      "tasks.write",
      "Tasks.read",
      "tasks.read ",
      "toString",
      "constructor",
      "__proto__",
      "hasOwnProperty",
    ]) {
      expect(isScope(other), other).toBe(false);
    }
  });
});

describe("expandScopes", () => {
  it("adds the .read of each .manage, and answers in catalogue order without repeats", () => {
    expect(expandScopes(["webhooks.manage", "tasks.manage"])).toEqual(["tasks.read", "tasks.manage", "webhooks.read", "webhooks.manage"]);
    expect(expandScopes(["tasks.read", "tasks.manage", "tasks.read"])).toEqual(["tasks.read", "tasks.manage"]);
    expect(expandScopes(["projects.read"])).toEqual(["projects.read"]);
    expect(expandScopes([])).toEqual([]);
  });

  it("a .read never implies its .manage", () => {
    expect(expandScopes(["financials.read", "organisation.read"])).toEqual(["organisation.read", "financials.read"]);
  });

  it("expands every .manage (audit.read has none: nothing implies it)", () => {
    expect(expandScopes(CATALOGUE.filter((s) => s.endsWith(".manage")) as Scope[])).toEqual(CATALOGUE.filter((s) => s !== "audit.read"));
  });
});

describe("parseScopeList", () => {
  it("parses a comma list, trimming blanks and empty items, and expands it", () => {
    expect(parseScopeList("tasks.manage,projects.read")).toEqual(["projects.read", "tasks.read", "tasks.manage"]);
    expect(parseScopeList(" tasks.read , ,risks.manage,")).toEqual(["tasks.read", "risks.read", "risks.manage"]);
  });

  it("refuses an empty list", () => {
    for (const list of ["", " ", ",", " , "])
      expect(() => parseScopeList(list), JSON.stringify(list)).toThrow("at least one scope is required");
  });

  it("refuses an unknown scope, naming it and listing the known ones", () => {
    expect(() => parseScopeList("tasks.read,tasks.write")).toThrow(`unknown scope "tasks.write" (known: ${CATALOGUE.join(", ")})`);
    expect(() => parseScopeList("toString")).toThrow('unknown scope "toString"');
  });
});

describe("firstMissingScope", () => {
  it("answers undefined when every required scope is held", () => {
    expect(firstMissingScope([], [])).toBeUndefined();
    expect(firstMissingScope(["tasks.read"], ["tasks.read", "projects.read"])).toBeUndefined();
    expect(firstMissingScope(["tasks.read", "projects.read"], ["projects.read", "tasks.read"])).toBeUndefined();
  });

  it("answers the first missing one in catalogue order, whatever order they are listed in", () => {
    expect(firstMissingScope(["tasks.read"], [])).toBe("tasks.read");
    expect(firstMissingScope(["webhooks.read", "tasks.read", "organisation.read"], ["tasks.read"])).toBe("organisation.read");
    expect(firstMissingScope(["webhooks.read", "tasks.read", "organisation.read"], ["organisation.read"])).toBe("tasks.read");
    expect(firstMissingScope(["tasks.read", "webhooks.read"], ["tasks.read", "tasks.manage"])).toBe("webhooks.read");
  });

  it("a scope held but not required is never the answer", () => {
    expect(firstMissingScope(["risks.read"], ["organisation.read", "projects.read"])).toBe("risks.read");
  });
});
