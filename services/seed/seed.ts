import { ALL_SCOPES, type Scope } from "../../domain/scopes.ts";
import { createOrganisation, type Organisation } from "../../db/statements/organisations.ts";
import { createApiKey } from "../api-keys.ts";
import type { ServiceContext } from "../context.ts";
import { publishPending } from "../events.ts";
import { milestones } from "../milestones.ts";
import { personnel } from "../personnel.ts";
import { projects } from "../projects.ts";
import { tasks } from "../tasks.ts";
import {
  DEFAULT_DEMO_TASKS,
  DEMO_KEY_APPLICATION,
  DEMO_ORGANISATION_NAME,
  DEMO_PEOPLE,
  DEMO_PROJECTS,
  planDemoTasks,
} from "./demo-company.ts";

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
 * changeVersion and leaves an event, exactly as if a client had made it. The events reach the
 * organisation's room at the end, in order and in batches, rather than one request per record.
 */
export async function seedDemo(base: Pick<ServiceContext, "db" | "rooms">, options: SeedOptions = {}): Promise<SeedResult> {
  const taskPlans = planDemoTasks(options.tasks ?? DEFAULT_DEMO_TASKS);
  const milestoneCount = DEMO_PROJECTS.reduce((sum, project) => sum + project.milestones.length, 0);
  const progress: SeedProgress = { done: 0, total: DEMO_PEOPLE.length + DEMO_PROJECTS.length + milestoneCount + taskPlans.length };
  const advance = () => {
    progress.done++;
    options.onProgress?.({ ...progress });
  };

  const organisation = await createOrganisation(base.db, { name: DEMO_ORGANISATION_NAME });
  const ctx: ServiceContext = { ...base, actor: { orgId: organisation.id }, defer: () => {} };

  const personIds: string[] = [];
  for (const person of DEMO_PEOPLE) {
    personIds.push((await personnel.create({ ctx, input: person })).record.id);
    advance();
  }

  const seededProjects: { id: string; milestoneIds: string[] }[] = [];
  for (const { milestones: milestonePlans, start, end, ...project } of DEMO_PROJECTS) {
    const { record } = await projects.create({ ctx, input: { ...project, startDate: daysFromToday(start), endDate: daysFromToday(end) } });
    advance();
    const milestoneIds: string[] = [];
    for (const { due, ...milestone } of milestonePlans) {
      const created = await milestones.create({ ctx, input: { projectId: record.id, ...milestone, dueDate: daysFromToday(due) } });
      milestoneIds.push(created.record.id);
      advance();
    }
    seededProjects.push({ id: record.id, milestoneIds });
  }

  await forEachConcurrently(taskPlans, SEED_CONCURRENCY, async ({ project, milestone, assignee, due, ...task }) => {
    const { id: projectId, milestoneIds } = seededProjects[project]!;
    await tasks.create({
      ctx,
      input: {
        ...task,
        projectId,
        assigneeId: personIds[assignee]!,
        dueDate: daysFromToday(due),
        ...(milestone === undefined ? {} : { milestoneId: milestoneIds[milestone]! }),
      },
    });
    advance();
  });

  const key = await createApiKey({ ctx, input: { orgId: organisation.id, application: DEMO_KEY_APPLICATION, scopes: ALL_SCOPES } });
  await publishPending(ctx, organisation.id).catch(() => {
    // The room is not running: the Worker's sweep publishes them once it is.
  });
  return {
    organisation,
    key: { id: key.id, key: key.key, scopes: key.scopes },
    counts: { personnel: personIds.length, projects: seededProjects.length, milestones: milestoneCount, tasks: taskPlans.length },
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
