import type { z } from "@hono/zod-openapi";
import { MilestoneSchema } from "./milestones.ts";
import { PersonSchema } from "./personnel.ts";
import { ProjectSchema } from "./projects.ts";

// The records a read may embed with ?expand= (db/statements: each resource's `expansions`): the
// related record's own fields. Derived fields (a project's progress) are answered when that record
// is read itself.

const ExpandedProject = (ProjectSchema as unknown as z.ZodObject).omit({ progress: true }).openapi("ExpandedProject", {
  description: "The project's own fields, as ?expand=project embeds it (its progress is answered when the project is read).",
});

const ExpandedMilestone = (MilestoneSchema as unknown as z.ZodObject).omit({ progress: true }).openapi("ExpandedMilestone", {
  description: "The milestone's own fields, as ?expand=milestone embeds it (its progress is answered when the milestone is read).",
});

/** ?expand=project on milestones, risks, issues and financial entries. */
export const PROJECT_EXPAND = { project: ExpandedProject };

/** ?expand= on tasks. */
export const TASK_EXPAND = { assignee: PersonSchema, project: ExpandedProject, milestone: ExpandedMilestone };
