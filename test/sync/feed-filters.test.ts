/* eslint-disable max-lines -- every filter reads the one fixed history beforeAll writes (two projects, a second organisation). */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { api, expectSuccess, workerUrl, type ApiOptions, type ApiResponse } from "../helpers/api.ts";
import { createTenant, insertPerson, keyWith, type Tenant } from "../helpers/fixtures.ts";
import { asPerson, fixturesOf, memberOf, signUp, signedIn, type Person } from "../helpers/people.ts";
import { financialEntryBody, issueBody, riskBody } from "../helpers/project-records.ts";
import { expectRefused, personBody, projectBody, taskBody } from "../helpers/resources.ts";

// GET /v1/events filters: types, projectId, recordId, excludeOwn, each alone and combined, for keys
// and for a person signed in; they narrow what the read scopes allow and never widen it, page with
// the filter kept, and the envelope's changeVersion is where to follow from next. One organisation
// (a person who signed up, owner, with two keys of its own) writes one fixed history in beforeAll,
// across two projects; a second organisation writes its own to prove isolation.

type Caller = (path: string, options?: ApiOptions) => Promise<ApiResponse>;
const withKey =
  (key: string): Caller =>
  (path, options = {}) =>
    api(path, { key, ...options });
const withSession =
  (person: Person): Caller =>
  (path, options = {}) =>
    asPerson(person.cookie, path, options);

/** What each write produced, by label: its event's type and changeVersion. */
const log = new Map<string, { type: string; changeVersion: number }>();
const ALL: string[] = [];

let owner: Person;
let member: Person;
let orgId: string;
let keyA: { key: string; id: string; application: string };
let keyB: { key: string; id: string; application: string };
const as: Record<"A" | "B" | "P", Caller> = {} as Record<"A" | "B" | "P", Caller>;
const ids = {} as Record<"P1" | "P2" | "T1" | "T2" | "M1" | "R1" | "I1" | "F1" | "X", string>;
let other: Tenant;
const otherIds = {} as Record<"Q" | "U", string>;

/** Each label's [type, changeVersion], the way the feed's events are compared. */
const expected = (labels: string[]) =>
  labels.map((label) => {
    const entry = log.get(label);
    if (!entry) throw new Error(`no write labelled ${label}`);
    return [entry.type, entry.changeVersion];
  });
const listed = (body: { data: Array<{ type: string; changeVersion: number }> }) => body.data.map((e) => [e.type, e.changeVersion]);

/** One page holding everything the filter selects (limit=200, nextCursor null), exactly `labels`. */
async function expectFeed(caller: Caller, query: string, labels: string[], org = orgId) {
  const response = await caller(`/v1/events?limit=200${query ? `&${query}` : ""}`);
  const body = expectSuccess(response);
  expect(listed(body as never), query).toEqual(expected(labels));
  expect(body.count).toBe(labels.length);
  expect(body.nextCursor).toBeNull();
  for (const event of body.data as Array<{ orgId: string }>) expect(event.orgId).toBe(org);
  return response;
}

beforeAll(async () => {
  owner = await signUp({ name: "Pat Person" });
  orgId = owner.orgId;
  const a = await keyWith(
    orgId,
    ["projects.manage", "tasks.manage", "organisation.manage", "risks.manage", "issues.manage", "financials.manage"],
    { application: "sync-a" },
  );
  const b = await keyWith(
    orgId,
    ["projects.manage", "tasks.manage", "organisation.manage", "risks.manage", "issues.manage", "financials.manage"],
    { application: "sync-b" },
  );
  keyA = { key: a.key, id: a.id, application: a.application };
  keyB = { key: b.key, id: b.id, application: b.application };
  as.A = withKey(keyA.key);
  as.B = withKey(keyB.key);
  as.P = withSession(owner);
  // A member, joined by invitation: their person (personnel.created, acted by them) is the first event.
  member = await memberOf(owner, "member");
  const [joined] = expectSuccess(await as.P("/v1/events")).data as Array<{ type: string; changeVersion: number }>;
  log.set("Y+", { type: joined!.type, changeVersion: joined!.changeVersion });
  ALL.push("Y+");
  const fixtures = fixturesOf(orgId);
  const assignee = (await insertPerson(orgId)).id;

  const write = async (
    label: string,
    who: "A" | "B" | "P",
    type: string,
    path: string,
    method: "POST" | "PATCH" | "DELETE",
    body?: unknown,
  ) => {
    const response = await as[who](path, { method, body });
    expect(response.status, `${label}: ${response.text}`).toBeLessThan(300);
    log.set(label, { type, changeVersion: response.body.changeVersion });
    ALL.push(label);
    return response.body.data as { id: string };
  };
  ids.P1 = (await write("P1+", "A", "project.created", "/v1/projects", "POST", projectBody({ budget: 100 }))).id;
  ids.P2 = (await write("P2+", "B", "project.created", "/v1/projects", "POST", projectBody({ budget: 200 }))).id;
  ids.T1 = (
    await write("T1+", "P", "task.created", "/v1/tasks", "POST", await taskBody(fixtures, { projectId: ids.P1, assigneeId: assignee }))
  ).id;
  ids.M1 = (
    await write("M1+", "A", "milestone.created", `/v1/projects/${ids.P1}/milestones`, "POST", { name: "M1", dueDate: "2026-05-01" })
  ).id;
  ids.T2 = (
    await write("T2+", "B", "task.created", "/v1/tasks", "POST", await taskBody(fixtures, { projectId: ids.P2, assigneeId: assignee }))
  ).id;
  await write("T1~a", "A", "task.updated", `/v1/tasks/${ids.T1}`, "PATCH", { status: "in_progress" });
  await write("P2~", "P", "project.updated", `/v1/projects/${ids.P2}`, "PATCH", { budget: 250 });
  ids.R1 = (await write("R1+", "B", "risk.created", "/v1/risks", "POST", await riskBody(fixtures, { projectId: ids.P1 }))).id;
  ids.I1 = (await write("I1+", "A", "issue.created", "/v1/issues", "POST", await issueBody(fixtures, { projectId: ids.P2 }))).id;
  ids.F1 = (
    await write(
      "F1+",
      "P",
      "financialEntry.created",
      "/v1/financial-entries",
      "POST",
      await financialEntryBody(fixtures, { projectId: ids.P1 }),
    )
  ).id;
  ids.X = (await write("X+", "B", "personnel.created", "/v1/personnel", "POST", personBody())).id;
  await write("P1~", "A", "project.updated", `/v1/projects/${ids.P1}`, "PATCH", { budget: 150 });
  await write("T2-", "B", "task.deleted", `/v1/tasks/${ids.T2}`, "DELETE");
  await write("T1~b", "P", "task.updated", `/v1/tasks/${ids.T1}`, "PATCH", { title: "T1 renamed by Pat" });
  await write("M1~", "A", "milestone.updated", `/v1/milestones/${ids.M1}`, "PATCH", { name: "M1 renamed" });
  // Every write above bumped the counter once, in this order.
  const versions = ALL.map((label) => log.get(label)!.changeVersion);
  expect(versions).toEqual(versions.map((_, i) => versions[0]! + i));

  // Another organisation, with a history of its own.
  other = await createTenant();
  otherIds.Q = (await api("/v1/projects", { key: other.key, body: projectBody() })).body.data.id;
  otherIds.U = (await api("/v1/tasks", { key: other.key, body: await taskBody(other, { projectId: otherIds.Q }) })).body.data.id;
  expect((await api(`/v1/tasks/${otherIds.U}`, { key: other.key, method: "PATCH", body: { status: "in_progress" } })).status).toBe(200);
}, 60_000);

const BY_A = ["P1+", "M1+", "T1~a", "I1+", "P1~", "M1~"];
const BY_B = ["P2+", "T2+", "R1+", "X+", "T2-"];
const BY_P = ["T1+", "P2~", "F1+", "T1~b"];
const BY_MEMBER = ["Y+"];
const without = (labels: string[]) => ALL.filter((label) => !labels.includes(label));

describe("no filter", () => {
  it("every event of the organisation, in changeVersion order, whoever wrote it; the envelope's changeVersion is the counter", async () => {
    expect([...BY_A, ...BY_B, ...BY_P, ...BY_MEMBER].sort()).toEqual([...ALL].sort());
    for (const caller of [as.A, as.B, as.P]) {
      const response = await expectFeed(caller, "", ALL);
      expect(response.body.changeVersion).toBe(log.get("M1~")!.changeVersion);
    }
    // The actors, as the events carry them.
    const body = expectSuccess(await as.A("/v1/events?limit=200"));
    const actorOf = (label: string) =>
      (body.data as Array<{ changeVersion: number; actor: unknown }>).find((e) => e.changeVersion === log.get(label)!.changeVersion)!.actor;
    expect(actorOf("P1+")).toEqual({ type: "key", id: keyA.id, name: "sync-a" });
    expect(actorOf("P2+")).toEqual({ type: "key", id: keyB.id, name: "sync-b" });
    expect(actorOf("T1+")).toEqual({ type: "user", id: owner.userId, name: "Pat Person" });
  });
});

describe("types", () => {
  // null: every event.
  const cases: Array<[string, string[] | null]> = [
    ["task.*", ["T1+", "T2+", "T1~a", "T2-", "T1~b"]],
    ["project.updated", ["P2~", "P1~"]],
    ["task.*,project.updated", ["T1+", "T2+", "T1~a", "P2~", "P1~", "T2-", "T1~b"]],
    ["task.deleted,milestone.*", ["M1+", "T2-", "M1~"]],
    ["financialEntry.*,risk.created", ["R1+", "F1+"]],
    ["personnel.*", ["Y+", "X+"]],
    ["issue.updated", []],
    [" task.created , risk.* ", ["T1+", "T2+", "R1+"]],
    ["task.*,task.created,task.*", ["T1+", "T2+", "T1~a", "T2-", "T1~b"]],
    ["*", null],
    ["milestone.updated,*", null],
  ];
  for (const [types, labels] of cases) {
    it(`types=${types}`, async () => {
      await expectFeed(as.A, `types=${encodeURIComponent(types)}`, labels ?? ALL);
    });
  }
});

describe("projectId", () => {
  it("the project's own events and those of its milestones, tasks, risks, issues and financial entries; never personnel", async () => {
    await expectFeed(as.A, `projectId=${ids.P1}`, ["P1+", "T1+", "M1+", "T1~a", "R1+", "F1+", "P1~", "T1~b", "M1~"]);
    await expectFeed(as.A, `projectId=${ids.P2}`, ["P2+", "T2+", "P2~", "I1+", "T2-"]);
  });

  it("an id that is no project (a task's, an unknown one, another organisation's project) selects nothing", async () => {
    await expectFeed(as.A, `projectId=${ids.T1}`, []);
    await expectFeed(as.A, `projectId=${randomUUID()}`, []);
    await expectFeed(as.A, `projectId=${otherIds.Q}`, []);
  });
});

describe("recordId", () => {
  it("the events whose data.id is the record: a task's, a deleted task's, a project's (not its children's), a person's", async () => {
    await expectFeed(as.A, `recordId=${ids.T1}`, ["T1+", "T1~a", "T1~b"]);
    await expectFeed(as.A, `recordId=${ids.T2}`, ["T2+", "T2-"]);
    await expectFeed(as.A, `recordId=${ids.P1}`, ["P1+", "P1~"]);
    await expectFeed(as.A, `recordId=${ids.X}`, ["X+"]);
    await expectFeed(as.A, `recordId=${ids.F1}`, ["F1+"]);
  });

  it("an unknown id, or another organisation's record, selects nothing", async () => {
    await expectFeed(as.A, `recordId=${randomUUID()}`, []);
    await expectFeed(as.A, `recordId=${otherIds.U}`, []);
  });
});

describe("ids in capitals", () => {
  it("projectId and recordId in capitals (as Swift's UUID.uuidString writes them) select what the same ids in lower case do, as on sockets", async () => {
    await expectFeed(as.A, `projectId=${ids.P2.toUpperCase()}`, ["P2+", "T2+", "P2~", "I1+", "T2-"]);
    await expectFeed(as.A, `recordId=${ids.T1.toUpperCase()}`, ["T1+", "T1~a", "T1~b"]);
  });
});

describe("excludeOwn", () => {
  it("true leaves out exactly the caller's own writes: key A's, key B's, the person's", async () => {
    await expectFeed(as.A, "excludeOwn=true", without(BY_A));
    await expectFeed(as.B, "excludeOwn=true", without(BY_B));
    await expectFeed(as.P, "excludeOwn=true", without(BY_P));
  });

  it("false, or absent, leaves nothing out", async () => {
    await expectFeed(as.A, "excludeOwn=false", ALL);
    await expectFeed(as.P, "excludeOwn=false", ALL);
  });

  it("own means the same key, not the same application name, and the same person across sessions", async () => {
    const twin = await keyWith(
      orgId,
      ["projects.read", "tasks.read", "organisation.read", "risks.read", "issues.read", "financials.read"],
      { application: "sync-a" },
    );
    await expectFeed(withKey(twin.key), "excludeOwn=true", ALL);
    const again = await signedIn(owner);
    expect(again.cookie).not.toBe(owner.cookie);
    await expectFeed(withSession(again), "excludeOwn=true", without(BY_P));
  });

  it("another person of the organisation (a member) is not the owner: their excludeOwn leaves out nothing the owner wrote", async () => {
    // A member reads everything but financial entries; their own is their person, made as they joined.
    await expectFeed(withSession(member), "excludeOwn=true", without(["F1+", ...BY_MEMBER]));
  });
});

describe("filters combined", () => {
  const cases: Array<[string, "A" | "B" | "P", () => string, string[]]> = [
    ["types and projectId", "A", () => `types=task.*&projectId=${ids.P1}`, ["T1+", "T1~a", "T1~b"]],
    ["types, projectId and excludeOwn (key A)", "A", () => `types=task.*&projectId=${ids.P1}&excludeOwn=true`, ["T1+", "T1~b"]],
    ["types, projectId and excludeOwn (the person)", "P", () => `types=task.*&projectId=${ids.P1}&excludeOwn=true`, ["T1~a"]],
    ["projectId and excludeOwn (key B)", "B", () => `projectId=${ids.P2}&excludeOwn=true`, ["P2~", "I1+"]],
    [
      "types project.*, projectId and excludeOwn (key A, who wrote nothing of P2)",
      "A",
      () => `types=project.*&projectId=${ids.P2}&excludeOwn=true`,
      ["P2+", "P2~"],
    ],
    ["recordId and excludeOwn (the person)", "P", () => `recordId=${ids.T1}&excludeOwn=true`, ["T1~a"]],
    ["recordId and types", "B", () => `recordId=${ids.T1}&types=task.updated`, ["T1~a", "T1~b"]],
    ["recordId of P2's task with projectId P1", "A", () => `recordId=${ids.T2}&projectId=${ids.P1}`, []],
    ["recordId and projectId of the same project", "A", () => `recordId=${ids.P1}&projectId=${ids.P1}`, ["P1+", "P1~"]],
    ["types personnel.* with projectId (personnel belong to no project)", "A", () => `types=personnel.*&projectId=${ids.P1}`, []],
    ["all four", "B", () => `types=task.*,milestone.*&projectId=${ids.P1}&recordId=${ids.T1}&excludeOwn=true`, ["T1+", "T1~a", "T1~b"]],
    ["all four, the person", "P", () => `types=task.*,milestone.*&projectId=${ids.P1}&recordId=${ids.T1}&excludeOwn=true`, ["T1~a"]],
  ];
  for (const [name, who, query, labels] of cases) {
    it(name, async () => {
      await expectFeed(as[who], query(), labels);
    });
  }

  it("after and a filter: the filtered events after N", async () => {
    await expectFeed(as.A, `after=${log.get("T1~a")!.changeVersion}&types=task.*`, ["T2-", "T1~b"]);
    await expectFeed(as.A, `after=${log.get("T1~b")!.changeVersion}&types=task.*`, []);
    await expectFeed(as.P, `after=${log.get("P2~")!.changeVersion}&projectId=${ids.P1}&excludeOwn=true`, ["R1+", "P1~", "M1~"]);
  });
});

describe("a filter never widens what the read scopes allow", () => {
  it("a tasks.read key: only task events, whatever the filter asks for", async () => {
    const tasksOnly = withKey((await keyWith(orgId, ["tasks.read"])).key);
    await expectFeed(tasksOnly, "", ["T1+", "T2+", "T1~a", "T2-", "T1~b"]);
    await expectFeed(tasksOnly, "types=*", ["T1+", "T2+", "T1~a", "T2-", "T1~b"]);
    await expectFeed(tasksOnly, "types=project.*,milestone.*,financialEntry.*", []);
    await expectFeed(tasksOnly, `projectId=${ids.P1}`, ["T1+", "T1~a", "T1~b"]);
    await expectFeed(tasksOnly, `recordId=${ids.P1}`, []);
    await expectFeed(tasksOnly, "excludeOwn=true", ["T1+", "T2+", "T1~a", "T2-", "T1~b"]);
  });

  it("a projects.read key sees projects and milestones; a key with no read scope sees nothing", async () => {
    const projectsOnly = withKey((await keyWith(orgId, ["projects.read"])).key);
    await expectFeed(projectsOnly, `projectId=${ids.P1}`, ["P1+", "M1+", "P1~", "M1~"]);
    await expectFeed(projectsOnly, `recordId=${ids.T1}`, []);
    const none = withKey((await keyWith(orgId, ["webhooks.read"])).key);
    for (const query of ["", "types=*", `projectId=${ids.P1}`, `recordId=${ids.T1}`, "excludeOwn=true"]) {
      const response = await expectFeed(none, query, []);
      expect(response.body.changeVersion, "the counter all the same").toBe(log.get("M1~")!.changeVersion);
    }
  });

  it("a member's session, without financials.read, never sees the financial entry", async () => {
    const session = withSession(member);
    await expectFeed(session, "types=financialEntry.*", []);
    await expectFeed(session, `recordId=${ids.F1}`, []);
    await expectFeed(session, `projectId=${ids.P1}`, ["P1+", "T1+", "M1+", "T1~a", "R1+", "P1~", "T1~b", "M1~"]);
  });
});

describe("isolation between organisations", () => {
  it("the other organisation's key sees its own three events only, whatever it filters on", async () => {
    const theirs = withKey(other.key);
    const body = expectSuccess(await theirs("/v1/events?limit=200"));
    expect(listed(body as never)).toEqual([
      ["project.created", 1],
      ["task.created", 2],
      ["task.updated", 3],
    ]);
    expect(body.data.every((e: { orgId: string }) => e.orgId === other.org.id)).toBe(true);
    for (const query of [`projectId=${ids.P1}`, `recordId=${ids.T1}`, "excludeOwn=true", "types=milestone.*"]) {
      expect(listed(expectSuccess(await theirs(`/v1/events?limit=200&${query}`)) as never), query).toEqual([]);
    }
    expect(listed(expectSuccess(await theirs(`/v1/events?projectId=${otherIds.Q}&types=task.*`)) as never)).toEqual([
      ["task.created", 2],
      ["task.updated", 3],
    ]);
    // And its reads say its own counter, not the other organisation's.
    expect((await theirs(`/v1/events?projectId=${ids.P1}`)).body.changeVersion).toBe(3);
  });
});

describe("paging with a filter", () => {
  /** Follows Link rel=next from `path` to the end: the pages' [type, changeVersion] lists. */
  async function follow(caller: Caller, path: string, keep: Record<string, string>) {
    const pages: Array<Array<unknown[]>> = [];
    let next: string | null = path;
    while (next) {
      const response = await caller(next);
      const body = expectSuccess(response);
      pages.push(listed(body as never));
      expect(response.body.changeVersion, "every page answers the counter").toBe(log.get("M1~")!.changeVersion);
      const link = response.headers.get("link");
      if (body.nextCursor === null) {
        expect(link).toBeNull();
        next = null;
        continue;
      }
      expect(body.nextCursor).toBe(String(body.data.at(-1).changeVersion));
      const url = new URL(/^<([^>]+)>; rel="next"$/.exec(link ?? "")![1]!, workerUrl());
      expect(url.searchParams.get("after")).toBe(body.nextCursor);
      for (const [name, value] of Object.entries(keep)) expect(url.searchParams.get(name), `Link keeps ${name}`).toBe(value);
      next = `${url.pathname}${url.search}`;
      expect(pages.length).toBeLessThan(20);
    }
    return pages;
  }

  it("types=task.*, limit=2: three pages, the filter kept in Link", async () => {
    const pages = await follow(as.A, "/v1/events?types=task.*&limit=2", { types: "task.*", limit: "2" });
    expect(pages).toEqual([expected(["T1+", "T2+"]), expected(["T1~a", "T2-"]), expected(["T1~b"])]);
  });

  it("projectId and excludeOwn, limit=3, as key B", async () => {
    const pages = await follow(as.B, `/v1/events?projectId=${ids.P1}&excludeOwn=true&limit=3`, {
      projectId: ids.P1,
      excludeOwn: "true",
      limit: "3",
    });
    expect(pages).toEqual([expected(["P1+", "T1+", "M1+"]), expected(["T1~a", "F1+", "P1~"]), expected(["T1~b", "M1~"])]);
  });

  it("recordId, limit=1, as the person", async () => {
    const pages = await follow(as.P, `/v1/events?recordId=${ids.T1}&limit=1`, { recordId: ids.T1, limit: "1" });
    expect(pages).toEqual([expected(["T1+"]), expected(["T1~a"]), expected(["T1~b"])]);
  });

  it("a page holding exactly the last matches says so: nextCursor null, no Link", async () => {
    const pages = await follow(as.A, `/v1/events?recordId=${ids.P1}&limit=2`, {});
    expect(pages).toEqual([expected(["P1+", "P1~"])]);
  });
});

describe("the envelope's changeVersion, filtered", () => {
  it("when nextCursor is null it is where to follow from next: nothing missed, nothing repeated, past events the filter left out", async () => {
    const tenant = await createTenant();
    const second = await tenant.keyWith(["projects.manage"]);
    const mine = withKey(tenant.key);
    const pa = (await mine("/v1/projects", { body: projectBody() })).body.data.id; // 1
    const pb = (await mine("/v1/projects", { body: projectBody() })).body.data.id; // 2
    expect((await mine(`/v1/projects/${pb}`, { method: "PATCH", body: { budget: 1 } })).status).toBe(200); // 3

    const filter = `types=project.*&projectId=${pa}`;
    const first = expectSuccess(await mine(`/v1/events?${filter}`));
    expect(listed(first as never)).toEqual([["project.created", 1]]);
    expect(first.nextCursor).toBeNull();
    const from = (first as unknown as { changeVersion: number }).changeVersion;
    expect(from, "the counter, past the last event the filter kept").toBe(3);
    const caughtUp = expectSuccess(await mine(`/v1/events?${filter}&after=${from}`));
    expect(caughtUp).toMatchObject({ count: 0, data: [], nextCursor: null, changeVersion: 3 });

    expect((await mine(`/v1/projects/${pb}`, { method: "PATCH", body: { budget: 2 } })).status).toBe(200); // 4: filtered out
    expect((await mine(`/v1/projects/${pa}`, { method: "PATCH", body: { budget: 3 } })).status).toBe(200); // 5: kept
    expect((await mine("/v1/tasks", { body: await taskBody(tenant, { projectId: pa }) })).status).toBe(201); // 6: a task, filtered out
    const later = expectSuccess(await mine(`/v1/events?${filter}&after=${from}`));
    expect(listed(later as never)).toEqual([["project.updated", 5]]);
    expect(later).toMatchObject({ nextCursor: null, changeVersion: 6 });
    expect(expectSuccess(await mine(`/v1/events?${filter}&after=6`))).toMatchObject({ count: 0, changeVersion: 6 });

    // excludeOwn: the caller's own write moves the changeVersion on, though the page leaves it out.
    expect((await api("/v1/projects", { key: second.key, body: projectBody() })).status).toBe(201); // 7, by the other key
    expect((await mine(`/v1/projects/${pb}`, { method: "PATCH", body: { budget: 4 } })).status).toBe(200); // 8, own
    const notOwn = expectSuccess(await mine("/v1/events?excludeOwn=true&after=6"));
    expect(listed(notOwn as never)).toEqual([["project.created", 7]]);
    expect(notOwn).toMatchObject({ nextCursor: null, changeVersion: 8 });
  });
});

describe("refused filters", () => {
  const invalid: Array<[string, string, string]> = [
    ["types=task", "invalid_field", "types"],
    ["types=bogus.*", "invalid_field", "types"],
    ["types=Task.*", "invalid_field", "types"],
    ["types=*.created", "invalid_field", "types"],
    ["types=task.created.again", "invalid_field", "types"],
    ["types=task.Created", "invalid_field", "types"],
    ["types=", "invalid_field", "types"],
    ["types=task.*,nope", "invalid_field", "types"],
    [`types=${Array.from({ length: 51 }, () => "task.*").join(",")}`, "invalid_field", "types"],
    [`types=${"%20".repeat(995)}task.*`, "invalid_field", "types"],
    ["projectId=not-a-uuid", "invalid_field", "projectId"],
    ["projectId=", "invalid_field", "projectId"],
    ["projectId=12345", "invalid_field", "projectId"],
    ["recordId=12345", "invalid_field", "recordId"],
    ["recordId=0190a5b2-0000-7000-8000-00000000000", "invalid_field", "recordId"],
    ["excludeOwn=yes", "invalid_field", "excludeOwn"],
    ["excludeOwn=1", "invalid_field", "excludeOwn"],
    ["excludeOwn=TRUE", "invalid_field", "excludeOwn"],
    ["excludeOwn=", "invalid_field", "excludeOwn"],
    ["type=task.*", "unknown_field", "type"],
    ["project=0190a5b2-0000-7000-8000-000000000001", "unknown_field", "project"],
    ["exclude_own=true", "unknown_field", "exclude_own"],
    ["types=task.*&projectId=0190a5b2-0000-7000-8000-000000000001&excludeOwn=maybe", "invalid_field", "excludeOwn"],
    ["types=task.*&recordId=nope&excludeOwn=true", "invalid_field", "recordId"],
    ["types=task.*&types=project.*", "invalid_field", "types"],
  ];
  it("the key is checked before the filter: no key with a bad filter is 401", async () => {
    await expectRefused(orgId, () => api("/v1/events?types=bogus.*&projectId=nope"), 401, "unauthorized");
  });

  for (const [params, code, field] of invalid) {
    it(`?${params.length > 80 ? `${params.slice(0, 60)}... (${params.length} chars)` : params}: 400 ${code} naming ${field}`, async () => {
      for (const caller of [as.A, as.P]) {
        await expectRefused(orgId, () => caller(`/v1/events?${params}`), 400, code, { field });
      }
    });
  }
});
