import { RESOURCES } from "./resources.ts";

// What a saved view (docs/people.md "Saved views") may be a view of: the collections the console
// lists in a table, named by their path (/v1/<path>), from the resource declarations.

export const SAVED_VIEW_RESOURCES = [
  RESOURCES.task.path,
  RESOURCES.risk.path,
  RESOURCES.issue.path,
  RESOURCES.financialEntry.path,
  RESOURCES.project.path,
  RESOURCES.milestone.path,
  RESOURCES.personnel.path,
] as const;

if (!SAVED_VIEW_RESOURCES.every((path) => /^[a-z-]+$/.test(path))) throw new Error("a saved view's resource is a plain path");

export type SavedViewResource = (typeof SAVED_VIEW_RESOURCES)[number];

/** The longest query string a view keeps (the console's URL after the "?"). */
export const MAX_VIEW_QUERY = 2000;
