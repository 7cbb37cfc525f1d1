/* eslint-disable max-lines -- one subject, the query every list takes: sort, q, fields and expand. */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../domain/ids.ts";
import { RESOURCES, type ResourceType } from "../../domain/resources.ts";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant, keyWith, type Tenant } from "../helpers/fixtures.ts";
import { insertFinancialEntry, insertIssue, insertRisk } from "../helpers/project-records.ts";
import { refusedCall, taskBody } from "../helpers/resources.ts";
import { insertComment, insertLabel } from "../helpers/work.ts";

// Lists that fit the question (docs/api.md "Lists"): ?sort= on the fields each list names, with a
// keyset cursor on the sort keys plus id, exact while others write; ?q= full-text search; ?fields=
// a sparse field set (id always); ?expand= related records embedded, each behind its read scope.

type Task = { id: string; dueDate: string; priority: string; status: string; title: string; createdAt: string; updatedAt: string };

const RANK: Record<string, readonly string[]> = {
  priority: RESOURCES.task.sortable.priority.rank,
  status: RESOURCES.task.sortable.status.rank,
};
const valueOf = (task: Task, field: string): string | number =>
  RANK[field] ? RANK[field]!.indexOf(task[field as keyof Task]) : task[field as keyof Task];

/** -1, 0 or 1: `a` before, tied with, or after `b` under the sort (ties broken by id, in the last key's direction). */
function compare(a: Task, b: Task, sort: { field: string; descending: boolean }[]): number {
  for (const { field, descending } of sort) {
    const [x, y] = [valueOf(a, field), valueOf(b, field)];
    if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
  }
  return (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (sort.at(-1)!.descending ? -1 : 1);
}

const parse = (text: string) => text.split(",").map((part) => ({ field: part.replace(/^-/, ""), descending: part.startsWith("-") }));

/** 500 tasks with few distinct values per field, so ties are everywhere, spread over creation and change times. */
async function arrangeTasks(tenant: Tenant, count: number): Promise<{ project: string; person: string; ids: string[] }> {
  const project = (await tenant.insertProject()).id;
  const person = (await tenant.insertPerson()).id;
  const ids: string[] = [];
  const rows = Array.from({ length: count }, (_, i) => {
    const id = uuidv7();
    ids.push(id);
    return [
      id,
      tenant.org.id,
      project,
      person,
      `Task ${String.fromCharCode(65 + (i % 7))}`,
      RESOURCES.task.sortable.status.rank[i % 5]!,
      RESOURCES.task.sortable.priority.rank[(i * 3) % 4]!,
      `2026-0${1 + (i % 9)}-1${i % 3}`,
      new Date(Date.UTC(2026, 0, 1) + (i % 50) * 1000).toISOString(),
      new Date(Date.UTC(2026, 1, 1) + (i % 40) * 1000).toISOString(),
    ];
  });
  for (let from = 0; from < rows.length; from += 100) {
    const chunk = rows.slice(from, from + 100);
    const values = chunk.map((_, r) => `(${Array.from({ length: 10 }, (_, c) => `$${r * 10 + c + 1}`).join(", ")})`).join(", ");
    await query(
      `insert into tasks (id, org_id, project_id, assignee_id, title, status, priority, due_date, created_at, updated_at) values ${values}`,
      chunk.flat(),
    );
  }
  return { project, person, ids };
}

describe("sort: paging under every sort while others write never loses or repeats a task", async () => {
  const tenant = await createTenant({ rateLimit: 1_000_000 });
  const { project, person, ids } = await arrangeTasks(tenant, 500);
  const fields = Object.keys(RESOURCES.task.sortable);
  const sorts = [...fields, ...fields.map((f) => `-${f}`), "status,-dueDate", "-priority,title,createdAt"];

  for (const sortText of sorts) {
    it(`sort=${sortText}`, async () => {
      const sort = parse(sortText);
      const sortKeys = new Set(sort.map((k) => k.field));
      // Writers, while the pages are read: new tasks created and deleted, and the first tasks'
      // descriptions changed (a field no sort uses; updatedAt moves with it, so under an
      // updatedAt sort only the new tasks are changed).
      let writing = true;
      const created: string[] = [];
      const writer = (async () => {
        for (let n = 0; writing; n++) {
          const task = expectSuccess(
            await api("/v1/tasks", {
              key: tenant.key,
              body: await taskBody(tenant, { projectId: project, assigneeId: person, title: `New ${n}` }),
            }),
            201,
          ).data;
          created.push(task.id);
          const target = sortKeys.has("updatedAt") ? task.id : ids[n % ids.length]!;
          expectSuccess(await api(`/v1/tasks/${target}`, { key: tenant.key, method: "PATCH", body: { description: `changed ${n}` } }));
          if (n % 3 === 2) expectSuccess(await api(`/v1/tasks/${created.shift()}`, { key: tenant.key, method: "DELETE" }));
        }
      })();
      const seen: Task[] = [];
      let cursor: string | null = null;
      try {
        do {
          const page: { data: Task[]; nextCursor?: string | null } = expectSuccess(
            await api(`/v1/tasks?projectId=${project}&sort=${sortText}&limit=37${cursor ? `&cursor=${cursor}` : ""}`, { key: tenant.key }),
          );
          seen.push(...page.data);
          cursor = page.nextCursor ?? null;
        } while (cursor);
      } finally {
        writing = false;
        await writer;
      }
      const seenIds = seen.map((t) => t.id);
      expect(new Set(seenIds).size, "no task is repeated").toBe(seenIds.length);
      const missing = ids.filter((id) => !seenIds.includes(id));
      expect(missing, "no task that was there throughout is lost").toEqual([]);
      for (let i = 1; i < seen.length; i++)
        expect(compare(seen[i - 1]!, seen[i]!, sort), `${seen[i - 1]!.id} before ${seen[i]!.id}`).toBe(-1);
    }, 120_000);
  }
});

describe("sort: refusals", () => {
  it("an unknown or repeated field is 400 invalid_field sort; a cursor of another sort, or forged, is 400 invalid_field cursor", async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 3; i++) await tenant.insertTask();
    for (const sort of ["assignee", "-", "dueDate,", "dueDate,-dueDate", "due_date", "dueDate;drop"]) {
      await refusedCall(tenant, `/v1/tasks?sort=${encodeURIComponent(sort)}`, {}, 400, "invalid_field", { field: "sort" });
    }
    const cursor = expectSuccess(await api("/v1/tasks?sort=dueDate&limit=1", { key: tenant.key })).nextCursor!;
    await refusedCall(tenant, `/v1/tasks?sort=-dueDate&limit=1&cursor=${cursor}`, {}, 400, "invalid_field", { field: "cursor" });
    await refusedCall(tenant, `/v1/tasks?limit=1&cursor=${cursor}`, {}, 400, "invalid_field", { field: "cursor" });
    const forge = (values: unknown[]) => Buffer.from(JSON.stringify({ sort: "dueDate", values, id: randomUUID() })).toString("base64url");
    for (const values of [["2026-02-30"], ["yesterday"], [1], [], ["2026-01-01", "2026-01-02"]]) {
      await refusedCall(tenant, `/v1/tasks?sort=dueDate&cursor=${forge(values)}`, {}, 400, "invalid_field", { field: "cursor" });
    }
    // A list that sorts by nothing beyond creation order refuses sort as a parameter it does not take.
    const webhook = await api("/v1/webhooks?sort=createdAt", { key: tenant.key });
    expectError(webhook, 400, "unknown_field", { field: "sort" });
  });

  it("sorts every list that names sortable fields, with its own fields", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const task = await tenant.insertTask({ projectId: project.id });
    await insertLabel(tenant);
    await insertComment(tenant, task.id);
    await insertRisk(tenant, { project_id: project.id });
    await insertIssue(tenant, { project_id: project.id });
    await insertFinancialEntry(tenant, { project_id: project.id });
    await tenant.insertMilestone(project.id);
    const lists: Partial<Record<ResourceType, string>> = {
      project: "/v1/projects",
      milestone: `/v1/projects/${project.id}/milestones`,
      personnel: "/v1/personnel",
      label: "/v1/labels",
      comment: `/v1/tasks/${task.id}/comments`,
      risk: "/v1/risks",
      issue: "/v1/issues",
      financialEntry: "/v1/financial-entries",
    };
    for (const [type, path] of Object.entries(lists)) {
      for (const field of Object.keys(RESOURCES[type as ResourceType].sortable)) {
        expect(
          expectSuccess(await api(`${path}?sort=-${field}`, { key: tenant.key })).data.length,
          `${path}?sort=-${field}`,
        ).toBeGreaterThan(0);
      }
    }
  });
});

describe("q: full-text search", () => {
  it("finds tasks by title and description, with English stemming, phrases, or and -excluded words, beside filters and sorts", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const post = async (title: string, description: string | null = null, projectId = project.id) =>
      expectSuccess(await api("/v1/tasks", { key: tenant.key, body: await taskBody(tenant, { title, description, projectId }) }), 201).data
        .id as string;
    const van = await post("Book the removal van", "Seven thirty at the loading dock");
    const vans = await post("Return both vans", null);
    const dock = await post("Paint the loading bay", "Yellow lines by the dock doors");
    const elsewhere = await post("Removal of old radiators", null, (await tenant.insertProject()).id);
    const found = async (q: string, extra = "") =>
      expectSuccess(await api(`/v1/tasks?q=${encodeURIComponent(q)}${extra}`, { key: tenant.key }))
        .data.map((t: { id: string }) => t.id)
        .sort();
    expect(await found("van")).toEqual([van, vans].sort());
    expect(await found("removals")).toEqual([van, elsewhere].sort());
    expect(await found("dock")).toEqual([van, dock].sort());
    expect(await found('"loading dock"')).toEqual([van]);
    expect(await found("vans or radiators")).toEqual([van, vans, elsewhere].sort());
    expect(await found("dock -paint")).toEqual([van]);
    expect(await found("removal", `&projectId=${project.id}`)).toEqual([van]);
    expect(await found("the")).toEqual([]);
    expect(
      expectSuccess(await api("/v1/tasks?q=van&sort=-title", { key: tenant.key })).data.map((t: { title: string }) => t.title),
    ).toEqual(["Return both vans", "Book the removal van"]);
  });

  it("finds projects by name and description; a list without search refuses q", async () => {
    const tenant = await createTenant();
    const [house, clinic] = [
      await tenant.insertProject({ name: "Riverside House fit-out" }),
      await tenant.insertProject({ name: "Clinic", description: "Refurbish the waiting rooms" } as never),
    ];
    expect(expectSuccess(await api("/v1/projects?q=house", { key: tenant.key })).data.map((p: { id: string }) => p.id)).toEqual([house.id]);
    expect(expectSuccess(await api("/v1/projects?q=room", { key: tenant.key })).data.map((p: { id: string }) => p.id)).toEqual([clinic.id]);
    await refusedCall(tenant, "/v1/risks?q=van", {}, 400, "unknown_field", { field: "q" });
    for (const q of ["", "x".repeat(201)]) await refusedCall(tenant, `/v1/tasks?q=${q}`, {}, 400, "invalid_field", { field: "q" });
    // Whatever a search box sends is a query, never an error.
    for (const q of ["'", "!!&|", "(a", "<-> :*", '"', "a & b | !c"])
      expectSuccess(await api(`/v1/tasks?q=${encodeURIComponent(q)}`, { key: tenant.key }));
  });
});

/** A record of every resource offering fields and expand, each naming the others. */
async function arrangeAll(tenant: Tenant) {
  const project = await tenant.insertProject();
  const person = await tenant.insertPerson();
  const milestone = await tenant.insertMilestone(project.id);
  const task = await tenant.insertTask({ projectId: project.id, assigneeId: person.id, milestoneId: milestone.id });
  const bare = await tenant.insertTask({ projectId: project.id, assigneeId: person.id });
  return {
    project,
    person,
    milestone,
    task,
    bare,
    paths: {
      "/v1/projects": project.id,
      "/v1/milestones": milestone.id,
      "/v1/tasks": task.id,
      "/v1/personnel": person.id,
      "/v1/labels": await insertLabel(tenant),
      "/v1/comments": await insertComment(tenant, task.id),
      "/v1/risks": await insertRisk(tenant, { project_id: project.id }),
      "/v1/issues": await insertIssue(tenant, { project_id: project.id }),
      "/v1/financial-entries": await insertFinancialEntry(tenant, { project_id: project.id }),
    },
  };
}

describe("fields: a sparse field set on every read", () => {
  it("a record (and each of a list) holds id and the fields named, and nothing else; the ETag comes with version only", async () => {
    const tenant = await createTenant();
    const { paths, project, task } = await arrangeAll(tenant);
    const lists: Record<string, string> = {
      ...Object.fromEntries(Object.keys(paths).map((p) => [p, p])),
      "/v1/milestones": `/v1/projects/${project.id}/milestones`,
      "/v1/comments": `/v1/tasks/${task.id}/comments`,
    };
    for (const [collection, id] of Object.entries(paths)) {
      const full = expectSuccess(await api(`${collection}/${id}`, { key: tenant.key })).data;
      const [, second, third] = Object.keys(full).filter((k) => k !== "id");
      const one = await api(`${collection}/${id}?fields=${second},${third}`, { key: tenant.key });
      expect(expectSuccess(one).data, collection).toEqual({ id, [second!]: full[second!], [third!]: full[third!] });
      expect(one.headers.get("etag")).toBeNull();
      const versioned = await api(`${collection}/${id}?fields=version`, { key: tenant.key });
      expect([expectSuccess(versioned).data, versioned.headers.get("etag")]).toEqual([{ id, version: full.version }, `"${full.version}"`]);
      const listed = expectSuccess(await api(`${lists[collection]}?fields=${second}`, { key: tenant.key })).data;
      for (const record of listed) expect(Object.keys(record).sort(), collection).toEqual(["id", second].sort());
      await refusedCall(tenant, `${collection}/${id}?fields=secret`, {}, 400, "invalid_field", { field: "fields" });
    }
  });

  it("paging and sorting work with fields that leave the sort keys out", async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 5; i++) await tenant.insertTask();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: { id: string }[]; nextCursor?: string | null } = expectSuccess(
        await api(`/v1/tasks?fields=title&sort=-dueDate&limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key: tenant.key }),
      );
      seen.push(...page.data.map((t: { id: string }) => t.id));
      cursor = page.nextCursor ?? null;
    } while (cursor);
    expect(seen).toEqual(expectSuccess(await api("/v1/tasks?sort=-dueDate", { key: tenant.key })).data.map((t: { id: string }) => t.id));
  });
});

describe("expand: related records in the same answer", () => {
  it("a task embeds its assignee, project and milestone (own fields; null when it has none), on reads and lists", async () => {
    const tenant = await createTenant();
    const { task, bare, person, project, milestone } = await arrangeAll(tenant);
    const full = (path: string) => api(path, { key: tenant.key }).then((r) => expectSuccess(r).data);
    const [personRecord, projectRecord, milestoneRecord] = [
      await full(`/v1/personnel/${person.id}`),
      await full(`/v1/projects/${project.id}`),
      await full(`/v1/milestones/${milestone.id}`),
    ];
    const { progress: _p, ...projectOwn } = projectRecord;
    const { progress: _m, ...milestoneOwn } = milestoneRecord;
    const expanded = await full(`/v1/tasks/${task.id}?expand=assignee,project,milestone`);
    expect(expanded).toMatchObject({ id: task.id, assignee: personRecord, project: projectOwn, milestone: milestoneOwn });
    expect(expanded.project).not.toHaveProperty("progress");
    expect((await full(`/v1/tasks/${bare.id}?expand=milestone`)).milestone).toBeNull();
    const listed = await full(`/v1/tasks?expand=project&fields=title`);
    for (const record of listed) expect(Object.keys(record).sort()).toEqual(["id", "project", "title"]);
  });

  it("milestones, risks, issues and financial entries embed their project", async () => {
    const tenant = await createTenant();
    const { paths, project } = await arrangeAll(tenant);
    for (const collection of ["/v1/milestones", "/v1/risks", "/v1/issues", "/v1/financial-entries"] as const) {
      expect(
        expectSuccess(await api(`${collection}/${paths[collection]}?expand=project`, { key: tenant.key })).data.project.id,
        collection,
      ).toBe(project.id);
    }
    await refusedCall(tenant, `/v1/labels/${paths["/v1/labels"]}?expand=project`, {}, 400, "unknown_field", { field: "expand" });
    await refusedCall(tenant, `/v1/tasks/${paths["/v1/tasks"]}?expand=owner`, {}, 400, "invalid_field", { field: "expand" });
  });

  it("each expansion needs its own read scope: 403 insufficient_scope naming it, before anything is answered", async () => {
    const tenant = await createTenant();
    const { task } = await arrangeAll(tenant);
    const tasksOnly = await keyWith(tenant.org.id, ["tasks.read"]);
    const as = { ...tenant, key: tasksOnly.key };
    await refusedCall(as, `/v1/tasks/${task.id}?expand=project`, {}, 403, "insufficient_scope", { scope: "projects.read" });
    await refusedCall(as, `/v1/tasks?expand=assignee`, {}, 403, "insufficient_scope", { scope: "organisation.read" });
    expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tasksOnly.key }));
  });
});
