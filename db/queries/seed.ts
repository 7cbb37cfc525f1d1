import { ALL_SCOPES, type Scope } from "../../functions/lib/scopes.ts";
import type { Database } from "../client.ts";
import type { Actor } from "./actor.ts";
import { createApiKey, createOrganisation, type Organisation } from "./admin.ts";
import {
  DEFAULT_DEMO_TASKS,
  DEMO_KEY_APPLICATION,
  DEMO_ORGANISATION_NAME,
  DEMO_PEOPLE,
  DEMO_PROJECTS,
  planDemoTasks,
} from "./demo-company.ts";
import { createMilestone } from "./milestones.ts";
import { createPersonnel } from "./personnel.ts";
import { createProject } from "./projects.ts";
import { createTask } from "./tasks.ts";

// Writes in flight at once while seeding tasks: enough to overlap round trips, few enough to stay
// within a small connection pool (node-postgres defaults to 4 here) and PGlite's single writer.
const SEED_CONCURRENCY = 4;

export interface SeedProgress {
  /** Records written so far (people, projects, milestones and tasks). */
  done: number;
  total: number;
}

export interface SeedOptions {
  /** How many tasks to create (default: the curated demo set of about 20). */
  tasks?: number;
  onProgress?: (progress: SeedProgress) => void;
}

export interface SeedResult {
  organisation: Organisation;
  /** An all-scopes key; `key.key` is the only copy of the secret. */
  key: { id: string; key: string; scopes: Scope[] };
  counts: { personnel: number; projects: number; milestones: number; tasks: number };
}

/**
 * Creates the demo organisation through the same services the API uses, so every record moves
 * changeVersion and leaves an event, exactly as if a client had made it.
 */
export async function seedDemo(db: Database, options: SeedOptions = {}): Promise<SeedResult> {
  const taskPlans = planDemoTasks(options.tasks ?? DEFAULT_DEMO_TASKS);
  const milestoneCount = DEMO_PROJECTS.reduce((sum, project) => sum + project.milestones.length, 0);
  const progress: SeedProgress = { done: 0, total: DEMO_PEOPLE.length + DEMO_PROJECTS.length + milestoneCount + taskPlans.length };
  const advance = () => {
    progress.done++;
    options.onProgress?.({ ...progress });
  };

  const organisation = await createOrganisation(db, { name: DEMO_ORGANISATION_NAME });
  const actor: Actor = { orgId: organisation.id };

  const personIds: string[] = [];
  for (const person of DEMO_PEOPLE) {
    personIds.push((await createPersonnel(db, actor, person)).record.id);
    advance();
  }

  const projects: { id: string; milestoneIds: string[] }[] = [];
  for (const { milestones, start, end, ...project } of DEMO_PROJECTS) {
    const { record } = await createProject(db, actor, { ...project, startDate: daysFromToday(start), endDate: daysFromToday(end) });
    advance();
    const milestoneIds: string[] = [];
    for (const { due, ...milestone } of milestones) {
      const created = await createMilestone(db, actor, { projectId: record.id, ...milestone, dueDate: daysFromToday(due) });
      milestoneIds.push(created.record.id);
      advance();
    }
    projects.push({ id: record.id, milestoneIds });
  }

  await forEachConcurrently(taskPlans, SEED_CONCURRENCY, async ({ project, milestone, assignee, due, ...task }) => {
    const { id: projectId, milestoneIds } = projects[project]!;
    await createTask(db, actor, {
      ...task,
      projectId,
      assigneeId: personIds[assignee]!,
      dueDate: daysFromToday(due),
      ...(milestone === undefined ? {} : { milestoneId: milestoneIds[milestone]! }),
    });
    advance();
  });

  const key = await createApiKey(db, { orgId: organisation.id, application: DEMO_KEY_APPLICATION, scopes: ALL_SCOPES });
  return {
    organisation,
    key: { id: key.id, key: key.key, scopes: key.scopes },
    counts: { personnel: personIds.length, projects: projects.length, milestones: milestoneCount, tasks: taskPlans.length },
  };
}

/** YYYY-MM-DD of today (UTC) plus `days`. */
function daysFromToday(days: number): string {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/**
 * Runs `work` on every item with at most `limit` in flight. After a failure no new work starts;
 * the work in flight settles before the first error is thrown, so the caller can close the database.
 */
async function forEachConcurrently<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const item = items[next++]!;
      await work(item).catch((error: unknown) => {
        failed = true;
        throw error;
      });
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = outcomes.find((outcome) => outcome.status === "rejected");
  if (failure) throw failure.reason;
}
