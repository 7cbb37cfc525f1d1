/* eslint-disable max-lines -- every resource's history is read from the one history beforeAll writes, with the same keys. */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { EventActor, OpsEvent } from "../../domain/events.ts";
import type { Scope } from "../../domain/scopes.ts";
import { projects } from "../../services/projects.ts";
import { roomsAt } from "../../services/room-client.ts";
import { api, expectError, expectSuccess, workerUrl, type ApiOptions, type ApiResponse } from "../helpers/api.ts";
import { testDatabase } from "../helpers/database.ts";
import { createTenant, insertMilestone, insertPerson, insertProject, insertTask, keyWith, type Tenant } from "../helpers/fixtures.ts";
import { asPerson, fixturesOf, memberOf, signUp, type Person } from "../helpers/people.ts";
import { financialEntryBody, insertFinancialEntry, insertIssue, insertRisk, issueBody, riskBody } from "../helpers/project-records.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import {
  ISO_TIMESTAMP,
  UUID,
  expectRefused,
  milestoneBody,
  personBody,
  projectBody,
  storedEvents,
  taskBody,
} from "../helpers/resources.ts";

// GET /v1/<resource>/{id}/history: a record's kept events oldest first (created, each update with
// its changes, deleted), each with its actor, paged by changeVersion; the resource's read scope;
// 404 for an id the organisation never had; a deleted record's history stays readable.

type Resource = "tasks" | "projects" | "milestones" | "personnel" | "risks" | "issues" | "financial-entries";

const RESOURCES: Record<Resource, { type: string; scope: Scope; insert: (tenant: Tenant) => Promise<string> }> = {
  tasks: { type: "task", scope: "tasks.read", insert: async (t) => (await t.insertTask()).id },
  projects: { type: "project", scope: "projects.read", insert: async (t) => (await t.insertProject()).id },
  milestones: {
    type: "milestone",
    scope: "projects.read",
    insert: async (t) => (await t.insertMilestone((await t.insertProject()).id)).id,
  },
  personnel: { type: "personnel", scope: "organisation.read", insert: async (t) => (await t.insertPerson()).id },
  risks: { type: "risk", scope: "risks.read", insert: (t) => insertRisk(t) },
  issues: { type: "issue", scope: "issues.read", insert: (t) => insertIssue(t) },
  "financial-entries": { type: "financialEntry", scope: "financials.read", insert: (t) => insertFinancialEntry(t) },
};

for (const [resource, { scope, insert }] of Object.entries(RESOURCES)) {
  describeRefusals({ method: "GET", path: (id) => `/v1/${resource}/${id}/history`, scope, record: insert });
}

type Caller = (path: string, options?: ApiOptions) => Promise<ApiResponse>;
type Changes = Record<string, { from: unknown; to: unknown }>;
type HistoryEvent = OpsEvent;

let owner: Person;
let orgId: string;
let keyA: { key: string; id: string };
let keyB: { key: string; id: string };
const as = {} as Record<"A" | "B" | "P", Caller>;
const ALL_MANAGE: Scope[] = [
  "projects.manage",
  "tasks.manage",
  "organisation.manage",
  "risks.manage",
  "issues.manage",
  "financials.manage",
];

beforeAll(async () => {
  owner = await signUp({ name: "Hana History" });
  orgId = owner.orgId;
  const a = await keyWith(orgId, ALL_MANAGE, { application: "history-a" });
  const b = await keyWith(orgId, ALL_MANAGE, { application: "history-b" });
  keyA = { key: a.key, id: a.id };
  keyB = { key: b.key, id: b.id };
  as.A = (path, options = {}) => api(path, { key: a.key, ...options });
  as.B = (path, options = {}) => api(path, { key: b.key, ...options });
  as.P = (path, options = {}) => asPerson(owner.cookie, path, options);
}, 60_000);

const actorOf = (who: "A" | "B" | "P"): EventActor =>
  who === "A"
    ? { type: "key", id: keyA.id, name: "history-a" }
    : who === "B"
      ? { type: "key", id: keyB.id, name: "history-b" }
      : { type: "user", id: owner.userId, name: "Hana History" };

/** A write that must succeed; answers the response body (data, changeVersion). */
async function write(who: "A" | "B" | "P", path: string, method: "POST" | "PATCH" | "DELETE", body?: unknown) {
  const response = await as[who](path, { method, body });
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return response.body as { data: Record<string, unknown> & { id: string }; changeVersion: number };
}

const counter = async (caller: Caller) =>
  expectSuccess(await caller("/v1/events?limit=1&after=999999999")) as unknown as { changeVersion: number };

interface Lifecycle {
  resource: Resource;
  /** Where to create it, and the body. */
  create: () => Promise<{ path: string; body: Record<string, unknown> }>;
  /** Two updates (by the person, then key B), each with the changes it must record. */
  updates: Array<{ body: Record<string, unknown>; changes: (before: Record<string, unknown>) => Changes }>;
  /** A write to another record of the same kind, made between the updates: never in this record's history. */
  sibling: () => Promise<{ path: string; body: Record<string, unknown> }>;
  deletable: boolean;
}

const fixtures = () => fixturesOf(orgId);
const LIFECYCLES: Lifecycle[] = [
  {
    resource: "tasks",
    create: async () => ({ path: "/v1/tasks", body: await taskBody(fixtures()) }),
    updates: [
      { body: { status: "in_progress" }, changes: () => ({ status: { from: "todo", to: "in_progress" } }) },
      {
        body: { title: "Renamed task", priority: "high" },
        changes: (before) => ({ title: { from: before.title, to: "Renamed task" }, priority: { from: "medium", to: "high" } }),
      },
    ],
    sibling: async () => ({ path: "/v1/tasks", body: await taskBody(fixtures()) }),
    deletable: true,
  },
  {
    resource: "projects",
    create: async () => ({ path: "/v1/projects", body: projectBody({ budget: 10 }) }),
    updates: [
      { body: { budget: 20 }, changes: () => ({ budget: { from: 10, to: 20 } }) },
      {
        body: { name: "Renamed project", status: "active" },
        changes: (before) => ({ name: { from: before.name, to: "Renamed project" }, status: { from: "planned", to: "active" } }),
      },
    ],
    sibling: async () => ({ path: "/v1/projects", body: projectBody() }),
    deletable: true,
  },
  {
    resource: "milestones",
    create: async () => ({
      path: `/v1/projects/${(await insertProject(orgId)).id}/milestones`,
      body: milestoneBody({ name: "M", dueDate: "2026-05-01" }),
    }),
    updates: [
      { body: { name: "M2" }, changes: () => ({ name: { from: "M", to: "M2" } }) },
      { body: { dueDate: "2026-06-01" }, changes: () => ({ dueDate: { from: "2026-05-01", to: "2026-06-01" } }) },
    ],
    sibling: async () => ({ path: `/v1/projects/${(await insertProject(orgId)).id}/milestones`, body: milestoneBody() }),
    deletable: true,
  },
  {
    resource: "personnel",
    create: async () => ({ path: "/v1/personnel", body: personBody({ role: "Driver" }) }),
    updates: [
      { body: { role: "Lead" }, changes: () => ({ role: { from: "Driver", to: "Lead" } }) },
      { body: { active: false }, changes: () => ({ active: { from: true, to: false } }) },
    ],
    sibling: async () => ({ path: "/v1/personnel", body: personBody() }),
    deletable: false,
  },
  {
    resource: "risks",
    create: async () => ({ path: "/v1/risks", body: await riskBody(fixtures()) }),
    updates: [
      { body: { status: "mitigated" }, changes: () => ({ status: { from: "open", to: "mitigated" } }) },
      {
        body: { probability: "high", mitigation: "Second supplier" },
        changes: () => ({ probability: { from: null, to: "high" }, mitigation: { from: null, to: "Second supplier" } }),
      },
    ],
    sibling: async () => ({ path: "/v1/risks", body: await riskBody(fixtures()) }),
    deletable: true,
  },
  {
    resource: "issues",
    create: async () => ({ path: "/v1/issues", body: await issueBody(fixtures()) }),
    updates: [
      { body: { status: "in_progress" }, changes: () => ({ status: { from: "open", to: "in_progress" } }) },
      { body: { severity: "high" }, changes: () => ({ severity: { from: null, to: "high" } }) },
    ],
    sibling: async () => ({ path: "/v1/issues", body: await issueBody(fixtures()) }),
    deletable: true,
  },
  {
    resource: "financial-entries",
    create: async () => ({ path: "/v1/financial-entries", body: await financialEntryBody(fixtures(), { amount: "1234.50" }) }),
    updates: [
      { body: { amount: "2000.00" }, changes: () => ({ amount: { from: "1234.50", to: "2000.00" } }) },
      { body: { description: "Crane hire" }, changes: () => ({ description: { from: null, to: "Crane hire" } }) },
    ],
    sibling: async () => ({ path: "/v1/financial-entries", body: await financialEntryBody(fixtures()) }),
    deletable: true,
  },
];

describe("a record's history", () => {
  for (const lifecycle of LIFECYCLES) {
    const { resource } = lifecycle;
    const type = RESOURCES[resource].type;
    it(`${resource}: created, updated by a person, updated by another key, ${lifecycle.deletable ? "deleted; " : ""}oldest first, with actors, exact changes and the records answered`, async () => {
      const made = await lifecycle.create();
      const createdBody = await write("A", made.path, "POST", made.body);
      const id = createdBody.data.id;
      const path = `/v1/${resource}/${id}`;
      const expectedEvents: Array<Omit<HistoryEvent, "id" | "occurredAt">> = [
        {
          type: `${type}.created`,
          orgId,
          changeVersion: createdBody.changeVersion,
          data: createdBody.data,
          changes: null,
          actor: actorOf("A"),
          batchId: null,
        },
      ];
      let before = createdBody.data;
      for (const [i, update] of lifecycle.updates.entries()) {
        const who = i === 0 ? "P" : "B";
        // Another record of the same kind changes in between: none of it is this record's history.
        const sibling = await lifecycle.sibling();
        await write(who, sibling.path, "POST", sibling.body);
        const updated = await write(who, path, "PATCH", update.body);
        expectedEvents.push({
          type: `${type}.updated`,
          orgId,
          changeVersion: updated.changeVersion,
          data: updated.data,
          changes: update.changes(before),
          actor: actorOf(who),
          batchId: null,
        });
        // The same patch again changes nothing: no event.
        const repeated = await write(who, path, "PATCH", update.body);
        expect(repeated.changeVersion, "a no-op moves nothing").toBe(updated.changeVersion);
        before = updated.data;
      }
      if (lifecycle.deletable) {
        const deleted = await write("A", path, "DELETE");
        expectedEvents.push({
          type: `${type}.deleted`,
          orgId,
          changeVersion: deleted.changeVersion,
          data: deleted.data,
          changes: null,
          actor: actorOf("A"),
          batchId: null,
        });
        expectError(await as.A(path), 404, "not_found");
      }

      const stored = await storedEvents(orgId);
      for (const caller of [as.A, as.B, as.P]) {
        const response = await caller(`${path}/history`);
        const page = expectSuccess(response);
        expect(page.data.map((e: HistoryEvent) => ({ ...e, id: undefined, occurredAt: undefined }))).toEqual(
          expectedEvents.map((e) => ({ ...e, id: undefined, occurredAt: undefined })),
        );
        for (const event of page.data as HistoryEvent[]) {
          expect(event.id).toMatch(UUID);
          expect(event.id).toBe(stored.find((s) => s.changeVersion === event.changeVersion)!.id);
          expect(event.occurredAt).toMatch(ISO_TIMESTAMP);
        }
        expect(page).toMatchObject({ count: expectedEvents.length, message: `${expectedEvents.length} events`, nextCursor: null });
        expect(response.body.changeVersion, "the organisation's counter").toBe((await counter(as.A)).changeVersion);
        expect(response.headers.get("link")).toBeNull();
      }
    });
  }

  it("a deleted record's history stays readable, and ends with the deletion", async () => {
    const project = await write("A", "/v1/projects", "POST", projectBody());
    const deleted = await write("B", `/v1/projects/${project.data.id}`, "DELETE");
    expectError(await as.A(`/v1/projects/${project.data.id}`), 404, "not_found");
    const page = expectSuccess(await as.P(`/v1/projects/${project.data.id}/history`));
    expect(page.data.map((e: HistoryEvent) => [e.type, e.changeVersion, e.actor.id])).toEqual([
      ["project.created", project.changeVersion, keyA.id],
      ["project.deleted", deleted.changeVersion, keyB.id],
    ]);
    expect((page.data as HistoryEvent[])[1]!.data).toEqual(deleted.data);
  });

  it("a record with no event (written straight to the database) has an empty history, not a 404", async () => {
    const tenant = fixtures();
    const records: Array<[Resource, string]> = [
      ["tasks", (await insertTask(orgId)).id],
      ["projects", (await insertProject(orgId)).id],
      ["milestones", (await insertMilestone(orgId, (await insertProject(orgId)).id)).id],
      ["personnel", (await insertPerson(orgId)).id],
      ["risks", await insertRisk(tenant)],
      ["issues", await insertIssue(tenant)],
      ["financial-entries", await insertFinancialEntry(tenant)],
    ];
    for (const [resource, id] of records) {
      const response = await as.A(`/v1/${resource}/${id}/history`);
      expect(expectSuccess(response), resource).toMatchObject({ count: 0, data: [], nextCursor: null, message: "0 events" });
      expect(response.body.changeVersion).toBe((await counter(as.A)).changeVersion);
    }
  });

  it("a change made by opsroom itself (the CLI, the seed) has the system actor", async () => {
    const project = await write("A", "/v1/projects", "POST", projectBody({ budget: 5 }));
    const ctx = { db: testDatabase(), actor: { orgId }, rooms: roomsAt(null), defer: () => {} };
    const result = await projects.update({ ctx, input: { id: project.data.id, patch: { budget: 6 }, ifMatch: null } });
    const page = expectSuccess(await as.A(`/v1/projects/${project.data.id}/history`));
    expect(page.data.map((e: HistoryEvent) => [e.type, e.actor, e.changes])).toEqual([
      ["project.created", actorOf("A"), null],
      ["project.updated", { type: "system", id: null, name: "opsroom" }, { budget: { from: 5, to: 6 } }],
    ]);
    expect((page.data as HistoryEvent[])[1]!.data).toEqual(result.record);
  });
});

describe("paging", () => {
  let taskId: string;
  /** The task's events' changeVersions, oldest first: its creation and 7 updates, between other writes. */
  const versions: number[] = [];

  beforeAll(async () => {
    const created = await write("A", "/v1/tasks", "POST", await taskBody(fixtures()));
    taskId = created.data.id;
    versions.push(created.changeVersion);
    for (let i = 1; i <= 7; i++) {
      await write("B", "/v1/tasks", "POST", await taskBody(fixtures()));
      versions.push((await write(i % 2 ? "P" : "A", `/v1/tasks/${taskId}`, "PATCH", { title: `Title ${i}` })).changeVersion);
    }
  }, 60_000);

  it("limit=3: pages of 3, 3, 2; nextCursor is the last event's changeVersion, Link carries it as cursor with the limit", async () => {
    const pages: number[][] = [];
    let next: string | null = `/v1/tasks/${taskId}/history?limit=3`;
    while (next) {
      const response = await as.A(next);
      const page = expectSuccess(response);
      pages.push(page.data.map((e: HistoryEvent) => e.changeVersion));
      const link = response.headers.get("link");
      if (page.nextCursor === null) {
        expect(link).toBeNull();
        next = null;
        continue;
      }
      expect(page.nextCursor).toBe(String(pages.at(-1)!.at(-1)));
      const url = new URL(/^<([^>]+)>; rel="next"$/.exec(link ?? "")![1]!, workerUrl());
      expect(url.pathname).toBe(`/v1/tasks/${taskId}/history`);
      expect(url.searchParams.get("cursor")).toBe(page.nextCursor);
      expect(url.searchParams.get("limit")).toBe("3");
      next = `${url.pathname}${url.search}`;
      expect(pages.length).toBeLessThan(10);
    }
    expect(pages).toEqual([versions.slice(0, 3), versions.slice(3, 6), versions.slice(6)]);
  });

  it("limit=1 walks every event; limit=8 holds them all with nextCursor null; limit=7 leaves one", async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const page: { data: HistoryEvent[]; nextCursor?: string | null } = expectSuccess(
        await as.B(`/v1/tasks/${taskId}/history?limit=1${cursor ? `&cursor=${cursor}` : ""}`),
      );
      seen.push(...page.data.map((e: HistoryEvent) => e.changeVersion));
      cursor = page.nextCursor ?? null;
      if (!cursor) break;
    }
    expect(seen).toEqual(versions);
    expect(expectSuccess(await as.A(`/v1/tasks/${taskId}/history?limit=8`))).toMatchObject({ count: 8, nextCursor: null });
    const seven = expectSuccess(await as.A(`/v1/tasks/${taskId}/history?limit=7`));
    expect(seven).toMatchObject({ count: 7, nextCursor: String(versions[6]) });
    expect(
      expectSuccess(await as.A(`/v1/tasks/${taskId}/history?limit=7&cursor=${versions[6]}`)).data.map((e: HistoryEvent) => e.changeVersion),
    ).toEqual([versions[7]]);
  });

  it("a cursor is any changeVersion: between the record's events, at the last one, past the counter", async () => {
    const between = versions[2]! + 1; // another task's creation
    expect(
      expectSuccess(await as.A(`/v1/tasks/${taskId}/history?cursor=${between}`)).data.map((e: HistoryEvent) => e.changeVersion),
    ).toEqual(versions.slice(3));
    for (const cursor of [versions.at(-1)!, 999_999_999]) {
      expect(expectSuccess(await as.A(`/v1/tasks/${taskId}/history?cursor=${cursor}`))).toMatchObject({
        count: 0,
        data: [],
        nextCursor: null,
      });
    }
    expect(expectSuccess(await as.A(`/v1/tasks/${taskId}/history?cursor=0`)).data.map((e: HistoryEvent) => e.changeVersion)).toEqual(
      versions,
    );
  });

  it("the default limit is 50", async () => {
    const tenant = await createTenant();
    const task = (await api("/v1/tasks", { key: tenant.key, body: await taskBody(tenant) })).body.data;
    for (let i = 1; i <= 50; i++)
      expect((await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { title: `T ${i}` } })).status).toBe(200);
    const first = expectSuccess(await api(`/v1/tasks/${task.id}/history`, { key: tenant.key }));
    expect(first).toMatchObject({ count: 50, nextCursor: "50" });
    expect(first.data.map((e: HistoryEvent) => e.changeVersion)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const second = expectSuccess(await api(`/v1/tasks/${task.id}/history?cursor=50`, { key: tenant.key }));
    expect(second.data.map((e: HistoryEvent) => [e.type, e.changeVersion])).toEqual([["task.updated", 51]]);
    expect(second.nextCursor).toBeNull();
    expect(expectSuccess(await api(`/v1/tasks/${task.id}/history?limit=200`, { key: tenant.key }))).toMatchObject({
      count: 51,
      nextCursor: null,
    });
  }, 60_000);

  const invalid: Array<[string, string, string]> = [
    ["cursor=abc", "invalid_field", "cursor"],
    ["cursor=-1", "invalid_field", "cursor"],
    ["cursor=1.5", "invalid_field", "cursor"],
    ["cursor=", "invalid_field", "cursor"],
    ["cursor=1e3", "invalid_field", "cursor"],
    ["cursor=1234567890123456", "invalid_field", "cursor"],
    ["cursor=%201", "invalid_field", "cursor"],
    ["limit=0", "invalid_field", "limit"],
    ["limit=201", "invalid_field", "limit"],
    ["limit=abc", "invalid_field", "limit"],
    ["limit=2.5", "invalid_field", "limit"],
    ["after=1", "unknown_field", "after"],
    ["types=task.*", "unknown_field", "types"],
  ];
  for (const [params, code, field] of invalid) {
    it(`?${params}: 400 ${code} naming ${field}`, async () => {
      for (const caller of [as.A, as.P])
        await expectRefused(orgId, () => caller(`/v1/tasks/${taskId}/history?${params}`), 400, code, { field });
    });
  }
});

describe("not found, and scopes", () => {
  it("an id the organisation never had: 404, for every resource; an id that is not a UUID: 400 naming id", async () => {
    for (const resource of Object.keys(RESOURCES)) {
      await expectRefused(orgId, () => as.A(`/v1/${resource}/${randomUUID()}/history`), 404, "not_found");
      await expectRefused(orgId, () => as.P(`/v1/${resource}/${randomUUID()}/history`), 404, "not_found");
      await expectRefused(orgId, () => as.A(`/v1/${resource}/not-a-uuid/history`), 400, "invalid_field", { field: "id" });
    }
  });

  it("another organisation's record, with a history of its own: 404, the same answer as an unknown id", async () => {
    const other = await createTenant();
    const project = (await api("/v1/projects", { key: other.key, body: projectBody() })).body.data;
    const task = (await api("/v1/tasks", { key: other.key, body: await taskBody(other, { projectId: project.id }) })).body.data;
    expect((await api(`/v1/tasks/${task.id}`, { key: other.key, method: "PATCH", body: { status: "in_progress" } })).status).toBe(200);
    const deleted = (await api("/v1/tasks", { key: other.key, body: await taskBody(other, { projectId: project.id }) })).body.data;
    expect((await api(`/v1/tasks/${deleted.id}`, { key: other.key, method: "DELETE" })).status).toBe(200);
    expect(expectSuccess(await api(`/v1/tasks/${task.id}/history`, { key: other.key })).count).toBe(2);

    for (const path of [`/v1/tasks/${task.id}/history`, `/v1/tasks/${deleted.id}/history`, `/v1/projects/${project.id}/history`]) {
      for (const caller of [as.A, as.P]) {
        const refused = await expectRefused([orgId, other.org.id], () => caller(path), 404, "not_found");
        expect(refused.message).not.toContain(other.org.id);
      }
    }
  });

  it("an id in capitals (as Swift's UUID.uuidString and .NET write it) is the same record: the same history as in lower case", async () => {
    const task = await write("A", "/v1/tasks", "POST", await taskBody(fixtures()));
    await write("B", `/v1/tasks/${task.data.id}`, "PATCH", { status: "in_progress" });
    const upper = task.data.id.toUpperCase();
    expect(upper).not.toBe(task.data.id);
    // The record itself answers to it.
    expect(expectSuccess(await as.A(`/v1/tasks/${upper}`)).data).toMatchObject({ id: task.data.id });
    const lower = expectSuccess(await as.A(`/v1/tasks/${task.data.id}/history`));
    expect(lower.count).toBe(2);
    expect(expectSuccess(await as.A(`/v1/tasks/${upper}/history`)).data).toEqual(lower.data);
    // A deleted record's too.
    await write("A", `/v1/tasks/${task.data.id}`, "DELETE");
    const deleted = expectSuccess(await as.A(`/v1/tasks/${task.data.id}/history`));
    expect(deleted.count).toBe(3);
    expect(expectSuccess(await as.A(`/v1/tasks/${upper}/history`)).data).toEqual(deleted.data);
  });

  it("a record of another kind is not found: a project's id under /v1/tasks, a task's under /v1/projects", async () => {
    const project = await write("A", "/v1/projects", "POST", projectBody());
    const task = await write("A", "/v1/tasks", "POST", await taskBody(fixtures(), { projectId: project.data.id }));
    await expectRefused(orgId, () => as.A(`/v1/tasks/${project.data.id}/history`), 404, "not_found");
    await expectRefused(orgId, () => as.A(`/v1/projects/${task.data.id}/history`), 404, "not_found");
    await expectRefused(orgId, () => as.A(`/v1/milestones/${project.data.id}/history`), 404, "not_found");
  });

  it("the resource's read scope: a tasks.read key reads task history, and is refused a project's naming projects.read", async () => {
    const project = await write("A", "/v1/projects", "POST", projectBody());
    const task = await write("A", "/v1/tasks", "POST", await taskBody(fixtures(), { projectId: project.data.id }));
    const tasksOnly = (await keyWith(orgId, ["tasks.read"])).key;
    expect(expectSuccess(await api(`/v1/tasks/${task.data.id}/history`, { key: tasksOnly })).data.map((e: HistoryEvent) => e.type)).toEqual(
      ["task.created"],
    );
    await expectRefused(orgId, () => api(`/v1/projects/${project.data.id}/history`, { key: tasksOnly }), 403, "insufficient_scope", {
      scope: "projects.read",
    });
    // 403 before existence: an unknown id is refused for the scope too.
    await expectRefused(orgId, () => api(`/v1/projects/${randomUUID()}/history`, { key: tasksOnly }), 403, "insufficient_scope", {
      scope: "projects.read",
    });
  });

  it("order of checks: key, then scope, then the query, then existence", async () => {
    const project = await write("A", "/v1/projects", "POST", projectBody());
    const tasksOnly = (await keyWith(orgId, ["tasks.read"])).key;
    await expectRefused(orgId, () => api(`/v1/projects/${project.data.id}/history?cursor=abc`), 401, "unauthorized");
    await expectRefused(
      orgId,
      () => api(`/v1/projects/${project.data.id}/history?cursor=abc&limit=0`, { key: tasksOnly }),
      403,
      "insufficient_scope",
      { scope: "projects.read" },
    );
    await expectRefused(orgId, () => api(`/v1/projects/${randomUUID()}/history?cursor=abc`, { key: keyA.key }), 400, "invalid_field", {
      field: "cursor",
    });
  });

  it("a member's session (no financials.read) reads a task's history and is refused a financial entry's", async () => {
    const member = await memberOf(owner, "member");
    const task = await write("A", "/v1/tasks", "POST", await taskBody(fixtures()));
    const entry = await write("A", "/v1/financial-entries", "POST", await financialEntryBody(fixtures()));
    expect(expectSuccess(await asPerson(member.cookie, `/v1/tasks/${task.data.id}/history`)).count).toBe(1);
    await expectRefused(orgId, () => asPerson(member.cookie, `/v1/financial-entries/${entry.data.id}/history`), 403, "insufficient_scope", {
      scope: "financials.read",
    });
  });
});
