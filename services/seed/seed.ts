import { createInvitation } from "../../db/statements/invitations.ts";
import { createOrganisation, type Organisation } from "../../db/statements/organisations.ts";
import { recordDeliveries } from "../../db/statements/webhook-deliveries.ts";
import { webhookResource } from "../../db/statements/webhooks.ts";
import { NO_REQUEST } from "../../domain/audit.ts";
import { hashApiKey } from "../../domain/crypto/api-keys.ts";
import { sha256Hex } from "../../domain/crypto/hash.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { ALL_SCOPES, expandScopes, type Scope } from "../../domain/scopes.ts";
import { createApiKey } from "../api-keys.ts";
import { runBatch, type BatchOperation } from "../batch.ts";
import { checklistItems } from "../checklist-items.ts";
import { comments } from "../comments.ts";
import type { ServiceContext } from "../context.ts";
import { publishPending } from "../events.ts";
import { financialEntries } from "../financial-entries.ts";
import { issues } from "../issues.ts";
import { labels } from "../labels.ts";
import { milestones } from "../milestones.ts";
import { personnel } from "../personnel.ts";
import { projects } from "../projects.ts";
import { risks } from "../risks.ts";
import { addDependency, tasks } from "../tasks.ts";
import { createUser } from "../users.ts";
import { createWebhook } from "../webhooks.ts";
import { seedDemoApplications } from "./demo-applications.ts";
import {
  DEMO_API_KEYS,
  DEMO_FINANCIAL_ENTRIES,
  DEMO_INVITATION,
  DEMO_ISSUES,
  DEMO_KEY_APPLICATION,
  DEMO_LABELS,
  DEMO_MEMBERS,
  DEMO_ORGANISATION_NAME,
  DEMO_PEOPLE,
  DEMO_PROJECTS,
  DEMO_RISKS,
  DEMO_WEBHOOKS,
} from "./demo-company.ts";
import { DEMO_IDS } from "./demo-ids.ts";
import { DEFAULT_DEMO_TASKS, DEMO_CHECKLIST_ITEMS, DEMO_COMMENTS, DEMO_DEPENDENCIES, planDemoTasks } from "./demo-tasks.ts";

/** Operations per batch: the API's own limit for POST /v1/batch. */
const BATCH_SIZE = 100;

export interface SeedProgress {
  /** Records written so far (people, projects, milestones, tasks, risks, issues and entries). */
  done: number;
  total: number;
}

export interface SeedOptions {
  /** How many tasks to create (default: the curated demo set of about 20). */
  tasks?: number;
  onProgress?: (progress: SeedProgress) => void;
  /**
   * Give the organisation the fixed ids of DEMO_IDS (the OpenAPI examples name them), with its
   * settings-area demo (members, an invitation, keys, a webhook). Only one organisation of a
   * database can have them: the first `npm run dev` asks for them in an empty database.
   */
  exampleIds?: boolean;
  /** With exampleIds: the receiver the demo's webhooks deliver to (default https://example.com). */
  webhookReceiver?: string;
}

export interface SeedResult {
  organisation: Organisation;
  /** An all-scopes key; `key.key` is the only copy of the secret. */
  key: { id: string; key: string; scopes: Scope[] };
  counts: {
    personnel: number;
    projects: number;
    milestones: number;
    tasks: number;
    labels: number;
    comments: number;
    risks: number;
    issues: number;
    financialEntries: number;
  };
}

/** A create of the demo, run by the resource's own service verb with the id chosen beforehand. */
interface Creatable<Input> {
  resource: BatchOperation["resource"];
  create(call: { ctx: ServiceContext; input: Input }): ReturnType<BatchOperation["run"]>;
}

const idOf = (fixedId: string | undefined) => fixedId ?? uuidv7();

/**
 * The demo's records as batch operations, in an order where each names only records before it:
 * people, projects and their milestones, the first project's risks, issues and money, labels,
 * tasks, their checklists and dependencies; with the ids chosen for them.
 */
function planDemo(fixed: typeof DEMO_IDS | undefined, taskCount: number) {
  const operations: BatchOperation[] = [];
  const create = <Input>(service: Creatable<Input>, id: string, input: Input) => {
    operations.push({ status: 201, newId: id, resource: service.resource, run: (opCtx) => service.create({ ctx: opCtx, input }) });
    return id;
  };

  const personIds = DEMO_PEOPLE.map((person, i) => create(personnel, idOf(fixed?.people[i]), person));
  const projectIds: string[] = [];
  const milestoneIds: string[][] = [];
  for (const [p, { milestones: milestonePlans, start, end, ...project }] of DEMO_PROJECTS.entries()) {
    const projectId = create(projects, idOf(fixed?.projects[p]), {
      ...project,
      startDate: daysFromToday(start),
      endDate: daysFromToday(end),
    });
    projectIds.push(projectId);
    milestoneIds.push(
      milestonePlans.map(({ due, ...milestone }, m) =>
        create(milestones, idOf(fixed?.milestones[p]![m]), { projectId, ...milestone, dueDate: daysFromToday(due) }),
      ),
    );
  }
  // Risks, issues and money belong to the first project.
  for (const [i, { owner, ...risk }] of DEMO_RISKS.entries())
    create(risks, idOf(fixed?.risks[i]), { ...risk, projectId: projectIds[0]!, ownerId: personIds[owner]! });
  for (const [i, { reporter, assignee, ...issue }] of DEMO_ISSUES.entries()) {
    create(issues, idOf(fixed?.issues[i]), {
      ...issue,
      projectId: projectIds[0]!,
      reporterId: personIds[reporter]!,
      assigneeId: personIds[assignee]!,
    });
  }
  for (const [i, { date, ...entry }] of DEMO_FINANCIAL_ENTRIES.entries()) {
    create(financialEntries, idOf(fixed?.financialEntries[i]), { ...entry, projectId: projectIds[0]!, date: daysFromToday(date) });
  }
  const labelIds = DEMO_LABELS.map((label, i) => create(labels, idOf(fixed?.labels[i]), label));
  const taskPlans = planDemoTasks(taskCount);
  const taskIds: string[] = [];
  for (const [i, { project, milestone, assignee, due, labels: labelled, parent, ...task }] of taskPlans.entries()) {
    taskIds.push(
      create(tasks, idOf(fixed?.tasks[i]), {
        ...task,
        projectId: projectIds[project]!,
        assigneeId: personIds[assignee]!,
        dueDate: daysFromToday(due),
        ...(milestone === undefined ? {} : { milestoneId: milestoneIds[project]![milestone]! }),
        ...(labelled ? { labelIds: labelled.map((l) => labelIds[l]!) } : {}),
        ...(parent === undefined ? {} : { parentId: taskIds[parent]! }),
      }),
    );
  }
  for (const [i, { task, ...item }] of DEMO_CHECKLIST_ITEMS.entries()) {
    if (task < taskIds.length) create(checklistItems, idOf(fixed?.checklistItems[i]), { ...item, taskId: taskIds[task]! });
  }
  const dependencies = DEMO_DEPENDENCIES.filter(([task, blocker]) => task < taskIds.length && blocker < taskIds.length);
  for (const [task, blocker] of dependencies) {
    operations.push({
      status: 200,
      resource: tasks.resource,
      run: (opCtx) => addDependency({ ctx: opCtx, input: { id: taskIds[task]!, blockedBy: taskIds[blocker]!, ifMatch: null } }),
    });
  }
  return { operations, personIds, projectIds, milestoneIds, labelIds, taskIds, taskPlans };
}

/** The demo's comments, written by the demo key (the API reference's examples change and remove them with it); how many. */
async function seedComments(ctx: ServiceContext, key: string, taskIds: string[], fixed: typeof DEMO_IDS | undefined): Promise<number> {
  const keyCtx: ServiceContext = { ...ctx, actor: { keyHash: hashApiKey(key) } };
  const commented = DEMO_COMMENTS.filter((comment) => comment.task < taskIds.length);
  const commentOperations: BatchOperation[] = commented.map(({ task, body }, i) => ({
    status: 201,
    newId: idOf(fixed?.comments[i]),
    resource: comments.resource,
    run: (opCtx) => comments.create({ ctx: opCtx, input: { taskId: taskIds[task]!, body } }),
  }));
  if (commentOperations.length) await runBatch({ ctx: keyCtx, input: { operations: commentOperations } });
  return commented.length;
}

/**
 * Creates the demo organisation through the same services the API uses, in batches of 100 as
 * POST /v1/batch runs them, so every record moves changeVersion and leaves an event, exactly as if
 * a client had made it. The events reach the organisation's room at the end, in order.
 */
export async function seedDemo(base: Pick<ServiceContext, "db" | "rooms">, options: SeedOptions = {}): Promise<SeedResult> {
  const fixed = options.exampleIds ? DEMO_IDS : undefined;
  const organisation = await createOrganisation(base.db, { name: DEMO_ORGANISATION_NAME, id: fixed?.organisation });
  const ctx: ServiceContext = { ...base, actor: { orgId: organisation.id }, defer: () => {} };

  const { operations, personIds, projectIds, milestoneIds, labelIds, taskIds, taskPlans } = planDemo(
    fixed,
    options.tasks ?? DEFAULT_DEMO_TASKS,
  );

  const progress: SeedProgress = { done: 0, total: operations.length };
  for (let from = 0; from < operations.length; from += BATCH_SIZE) {
    const batch = operations.slice(from, from + BATCH_SIZE);
    await runBatch({ ctx, input: { operations: batch } });
    progress.done += batch.length;
    options.onProgress?.({ ...progress });
  }
  if (fixed) await seedSettingsDemo(ctx, organisation.id, fixed, options.webhookReceiver ?? "https://example.com");
  if (fixed) await seedDemoApplications(ctx, organisation.id, fixed);

  const key = await createApiKey({ ctx, input: { orgId: organisation.id, application: DEMO_KEY_APPLICATION, scopes: ALL_SCOPES } });
  const commented = await seedComments(ctx, key.key, taskIds, fixed);
  await publishPending(ctx, organisation.id).catch(() => {
    // The room is not running: the Worker's sweep publishes them once it is.
  });
  return {
    organisation,
    key: { id: key.id, key: key.key, scopes: key.scopes },
    counts: {
      personnel: personIds.length,
      projects: projectIds.length,
      milestones: milestoneIds.flat().length,
      tasks: taskPlans.length,
      labels: labelIds.length,
      comments: commented,
      risks: DEMO_RISKS.length,
      issues: DEMO_ISSUES.length,
      financialEntries: DEMO_FINANCIAL_ENTRIES.length,
    },
  };
}

/** The settings area's demo, with the fixed ids: members, an invitation, two keys, two webhooks and one delivery. */
async function seedSettingsDemo(ctx: ServiceContext, orgId: string, ids: typeof DEMO_IDS, receiver: string): Promise<void> {
  for (const [i, member] of DEMO_MEMBERS.entries()) await createUser({ ctx, input: { ...member, orgId, userId: ids.members[i] } });
  const invitation = await createInvitation(
    ctx.db,
    ctx.actor,
    {
      id: ids.invitation,
      ...DEMO_INVITATION,
      tokenHash: sha256Hex(uuidv7()),
      expiresInDays: 14,
    },
    NO_REQUEST,
  );
  if (!invitation.invitation) throw new Error("the demo invitation was not created");
  for (const [i, key] of DEMO_API_KEYS.entries())
    await createApiKey({ ctx, input: { orgId, application: key.application, scopes: expandScopes(key.scopes), id: ids.apiKeys[i] } });
  const webhooks: BatchOperation[] = DEMO_WEBHOOKS.map((webhook, i) => ({
    status: 201,
    newId: ids.webhooks[i],
    resource: webhookResource,
    // The seed is run by whoever runs the CLI: a local receiver is theirs to choose.
    run: (opCtx) =>
      createWebhook({
        ctx: opCtx,
        input: {
          url: new URL(webhook.path, receiver).toString(),
          events: [...webhook.events],
          description: webhook.description,
          policy: { allowLoopback: true },
        },
      }),
  }));
  await runBatch({ ctx, input: { operations: webhooks } });
  // One past delivery of a test event, so a redelivery has something to send again.
  await recordDeliveries(ctx.db, orgId, [
    {
      id: ids.delivery,
      webhookId: ids.webhooks[0]!,
      eventId: uuidv7(),
      eventType: "webhook.test",
      changeVersion: null,
      attempt: 1,
      outcome: "succeeded",
      responseStatus: 200,
      durationMs: 84,
      error: null,
      responseExcerpt: "ok",
      nextRetryAt: null,
    },
  ]);
}

/** YYYY-MM-DD of today (UTC) plus `days`. */
function daysFromToday(days: number): string {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}
