import { describe, expect, it } from "vitest";
import { EVENT_SCOPES } from "../../domain/events.ts";
import { RESOURCES } from "../../domain/resources.ts";
import { resourceNames } from "../../functions/routes/resource-names.ts";

// domain/resources.ts: each resource declared once, and what is built from it: the scope that sees
// its events, its routes' tag, paths and operation names (the methods of generated clients, which
// must never move).

describe("the declarations", () => {
  it("give each resource's events the read scope of docs/api.md, in the catalogue's order", () => {
    expect(Object.entries(EVENT_SCOPES)).toEqual([
      ["task", "tasks.read"],
      ["label", "tasks.read"],
      ["comment", "tasks.read"],
      ["checklistItem", "tasks.read"],
      ["project", "projects.read"],
      ["milestone", "projects.read"],
      ["personnel", "organisation.read"],
      ["risk", "risks.read"],
      ["issue", "issues.read"],
      ["financialEntry", "financials.read"],
    ]);
  });

  it("name each resource's routes as the API always has", () => {
    const named = Object.values(RESOURCES).map((declaration) => {
      const { tag, path, collectionPath, operations } = resourceNames(declaration);
      return [tag, collectionPath ?? path, operations.list, operations.create, operations.get, operations.upsert, operations.history];
    });
    expect(named).toEqual([
      ["Tasks", "/v1/tasks", "listTasks", "createTask", "getTask", "upsertTask", "listTaskHistory"],
      ["Labels", "/v1/labels", "listLabels", "createLabel", "getLabel", "upsertLabel", "listLabelHistory"],
      ["Comments", "/v1/tasks/{id}/comments", "listComments", "createComment", "getComment", "upsertComment", "listCommentHistory"],
      [
        "Checklist items",
        "/v1/tasks/{id}/checklist-items",
        "listChecklistItems",
        "createChecklistItem",
        "getChecklistItem",
        "upsertChecklistItem",
        "listChecklistItemHistory",
      ],
      ["Projects", "/v1/projects", "listProjects", "createProject", "getProject", "upsertProject", "listProjectHistory"],
      [
        "Milestones",
        "/v1/projects/{id}/milestones",
        "listMilestones",
        "createMilestone",
        "getMilestone",
        "upsertMilestone",
        "listMilestoneHistory",
      ],
      ["Personnel", "/v1/personnel", "listPersonnel", "createPerson", "getPerson", "upsertPerson", "listPersonHistory"],
      ["Risks", "/v1/risks", "listRisks", "createRisk", "getRisk", "upsertRisk", "listRiskHistory"],
      ["Issues", "/v1/issues", "listIssues", "createIssue", "getIssue", "upsertIssue", "listIssueHistory"],
      [
        "Financial entries",
        "/v1/financial-entries",
        "listFinancialEntries",
        "createFinancialEntry",
        "getFinancialEntry",
        "upsertFinancialEntry",
        "listFinancialEntryHistory",
      ],
    ]);
  });
});
