/* eslint-disable max-lines -- one subject, a refused batch: every refusal is tested at the last operation of the same batch of writes, with the same no-trace check (the envelope's own refusals are in validation.test.ts). */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../domain/crypto/api-keys.ts";
import { api, expectError } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, scopesWithout, type Tenant } from "../helpers/fixtures.ts";
import { milestoneBody, personBody, projectBody, unique } from "../helpers/resources.ts";
import { expectBatchRefused, expectSameRefusal, sendBatch, singleCall, type Operation } from "./helpers.ts";

// A refused batch writes nothing (docs/api.md "Batches"): it answers the refused operation's own
// status and error, exactly what the single call would have answered, with `error.operation` its
// index; no row, no changeVersion, no event. Each case below is refused at the LAST operation,
// after operations that write to several tables (creates, a change, a PUT by external id), so a
// batch that committed what came before its refusal is caught. Scopes per operation and the key
// are at the end; the batch's own envelope (paths, refs, shapes) is in validation.test.ts.

interface Arranged {
  tenant: Tenant;
  person: { id: string; email: string };
  task: { id: string };
  /** Operations that would all succeed: a project (ref p) with a milestone (ref m) and a task, a patch, an upsert. */
  prefix: Operation[];
}

async function arrange(tenant?: Tenant): Promise<Arranged> {
  tenant ??= await createTenant();
  const person = await tenant.insertPerson();
  const task = await tenant.insertTask({ assigneeId: person.id, status: "todo" });
  const prefix: Operation[] = [
    { method: "POST", path: "/v1/projects", ref: "p", body: projectBody() },
    { method: "POST", path: "/v1/projects/$p.id/milestones", ref: "m", body: milestoneBody() },
    {
      method: "POST",
      path: "/v1/tasks",
      ref: "t",
      body: { title: "Prefix", projectId: "$p.id", milestoneId: "$m.id", assigneeId: person.id, dueDate: "2026-06-30" },
    },
    { method: "PATCH", path: `/v1/tasks/${task.id}`, body: { title: "Renamed by the prefix" } },
    { method: "PUT", path: `/v1/personnel/by-external-id/ext-${unique()}`, body: personBody() },
  ];
  return { tenant, person, task, prefix };
}

interface LastOperationCase {
  /** The refused last operation, given what was arranged. */
  last: (a: Arranged, other: Tenant) => Operation | Promise<Operation>;
  status: number;
  code: string;
  details?: (a: Arranged) => Record<string, unknown>;
  /** The operation does not depend on the batch's earlier ones: its single call must answer the same. */
  single: boolean;
  /** Operations between the prefix and the refused one. */
  between?: Operation[];
  /** Sent with another key of the organisation, holding these scopes. */
  scopes?: Parameters<Tenant["keyWith"]>[0];
}

const CASES: Record<string, LastOperationCase> = {
  "validation, a field missing (400 missing_field)": {
    last: () => ({ method: "POST", path: "/v1/tasks", body: { title: "No project" } }),
    status: 400,
    code: "missing_field",
    details: () => ({ field: "projectId" }),
    single: true,
  },
  "validation, a field invalid (400 invalid_field)": {
    last: () => ({ method: "POST", path: "/v1/projects", body: projectBody({ budget: -1 }) }),
    status: 400,
    code: "invalid_field",
    details: () => ({ field: "budget" }),
    single: true,
  },
  "validation, a field unknown (400 unknown_field)": {
    last: (a) => ({ method: "PATCH", path: `/v1/tasks/${a.task.id}`, body: { colour: "red" } }),
    status: 400,
    code: "unknown_field",
    details: () => ({ field: "colour" }),
    single: true,
  },
  "a reference to another organisation's person (400 invalid_reference)": {
    last: async (a, other) => ({
      method: "POST",
      path: "/v1/tasks",
      body: {
        title: "Foreign",
        projectId: (await a.tenant.insertProject()).id,
        assigneeId: (await other.insertPerson()).id,
        dueDate: "2026-06-30",
      },
    }),
    status: 400,
    code: "invalid_reference",
    details: () => ({ field: "assigneeId" }),
    single: true,
  },
  "a reference the batch made, of the wrong project (400 invalid_reference)": {
    last: async (a) => ({
      method: "POST",
      path: "/v1/tasks",
      body: {
        title: "Wrong milestone",
        projectId: (await a.tenant.insertProject()).id,
        milestoneId: "$m.id",
        assigneeId: a.person.id,
        dueDate: "2026-06-30",
      },
    }),
    status: 400,
    code: "invalid_reference",
    details: () => ({ field: "milestoneId" }),
    single: false,
  },
  "a stale If-Match (412 precondition_failed)": {
    last: async (a) => ({
      method: "PATCH",
      path: `/v1/tasks/${(await a.tenant.insertTask()).id}`,
      ifMatch: '"7"',
      body: { priority: "high" },
    }),
    status: 412,
    code: "precondition_failed",
    details: () => ({ currentVersion: 1 }),
    single: true,
  },
  "an If-Match the batch's own change made stale (412, currentVersion as the batch left it)": {
    last: (a) => ({ method: "PATCH", path: `/v1/tasks/${a.task.id}`, ifMatch: 1, body: { priority: "high" } }),
    status: 412,
    code: "precondition_failed",
    details: () => ({ currentVersion: 2 }),
    single: false,
  },
  "a move the workflow does not allow (409 invalid_transition)": {
    last: (a) => ({ method: "PATCH", path: `/v1/tasks/${a.task.id}`, body: { status: "done" } }),
    status: 409,
    code: "invalid_transition",
    details: () => ({ field: "status", from: "todo", allowed: ["in_progress", "cancelled"] }),
    single: true,
  },
  "a move the workflow does not allow after the batch's own (409 invalid_transition)": {
    last: () => ({ method: "PATCH", path: "/v1/tasks/$t.id", body: { status: "blocked" } }),
    status: 409,
    code: "invalid_transition",
    details: () => ({ field: "status", from: "todo" }),
    single: false,
  },
  "deleting the project the batch gave a task (409 conflict)": {
    last: () => ({ method: "DELETE", path: "/v1/projects/$p.id" }),
    status: 409,
    code: "conflict",
    single: false,
  },
  "a scope the key lacks (403 insufficient_scope)": {
    last: async (a) => ({
      method: "POST",
      path: "/v1/financial-entries",
      body: { projectId: (await a.tenant.insertProject()).id, kind: "cost", amount: "1.00", currency: "EUR", date: "2026-03-31" },
    }),
    scopes: ["projects.manage", "tasks.manage", "organisation.manage", "financials.read"],
    status: 403,
    code: "insufficient_scope",
    details: () => ({ scope: "financials.manage" }),
    single: true,
  },
  "a record that does not exist (404 not_found)": {
    last: () => ({ method: "DELETE", path: `/v1/risks/${randomUUID()}` }),
    status: 404,
    code: "not_found",
    single: true,
  },
  "another organisation's record (404 not_found)": {
    last: async (_, other) => ({ method: "PATCH", path: `/v1/tasks/${(await other.insertTask()).id}`, body: { title: "Mine now" } }),
    status: 404,
    code: "not_found",
    single: true,
  },
  "the record the batch deleted (404 not_found)": {
    between: [{ method: "DELETE", path: "/v1/tasks/$t.id" }],
    last: () => ({ method: "PATCH", path: "/v1/tasks/$t.id", body: { title: "Gone" } }),
    status: 404,
    code: "not_found",
    single: false,
  },
};

describe("refused at its last operation: the refusal, and nothing written", () => {
  for (const [name, test] of Object.entries(CASES)) {
    it(name, async () => {
      const arranged = await arrange();
      const other = await createTenant();
      const key = test.scopes ? (await arranged.tenant.keyWith(test.scopes)).key : arranged.tenant.key;
      const last = await test.last(arranged, other);
      const operations = [...arranged.prefix, ...(test.between ?? []), last];
      const index = operations.length - 1;
      const { response } = await expectBatchRefused(
        { key, orgIds: [arranged.tenant.org.id, other.org.id] },
        operations,
        test.status,
        test.code,
        {
          ...test.details?.(arranged),
          operation: index,
        },
      );
      if (!test.single) return;
      const before = await snapshot(arranged.tenant.org.id);
      expectSameRefusal(response, await singleCall(key, last), index);
      expectNoTrace(before, await snapshot(arranged.tenant.org.id));
    });
  }
});

describe("a person's email, unique in the organisation whatever its case", () => {
  const duplicate = async () => {
    const arranged = await arrange();
    const last: Operation = { method: "POST", path: "/v1/personnel", body: personBody({ email: arranged.person.email.toUpperCase() }) };
    return { ...arranged, last, operations: [...arranged.prefix, last] };
  };

  it("an email another person has (in another case): 409 conflict on email at its index, as the single call, nothing written", async () => {
    const { tenant, last, operations } = await duplicate();
    const { response } = await expectBatchRefused(tenant, operations, 409, "conflict", {
      field: "email",
      operation: operations.length - 1,
    });
    expectSameRefusal(response, await singleCall(tenant.key, last), operations.length - 1);
  });

  it("two people of the batch with one email: 409 conflict on email at the second, nothing written", async () => {
    const { tenant, prefix } = await arrange();
    const person = personBody();
    const operations: Operation[] = [
      ...prefix,
      { method: "POST", path: "/v1/personnel", body: person },
      { method: "POST", path: "/v1/personnel", body: personBody({ email: person.email }) },
    ];
    await expectBatchRefused(tenant, operations, 409, "conflict", { field: "email", operation: operations.length - 1 });
  });

  it("a PUT by external id with another person's email: 409 conflict on email at its index, as the single call", async () => {
    const { tenant, prefix, person } = await arrange();
    const put: Operation = {
      method: "PUT",
      path: `/v1/personnel/by-external-id/hr-${unique()}`,
      body: personBody({ email: person.email }),
    };
    const operations = [...prefix, put];
    const { response } = await expectBatchRefused(tenant, operations, 409, "conflict", {
      field: "email",
      operation: operations.length - 1,
    });
    expectSameRefusal(response, await singleCall(tenant.key, put), operations.length - 1);
  });

  it("a change to an email the batch gave someone else: 409 conflict on email at its index", async () => {
    const { tenant, prefix, person } = await arrange();
    const taken = personBody();
    const operations: Operation[] = [
      ...prefix,
      { method: "POST", path: "/v1/personnel", body: taken },
      { method: "PATCH", path: `/v1/personnel/${person.id}`, body: { email: taken.email } },
    ];
    await expectBatchRefused(tenant, operations, 409, "conflict", { field: "email", operation: operations.length - 1 });
  });
});

describe("error.operation is the refused operation's index, wherever it is", () => {
  it("the first of three: refused before the database (400)", async () => {
    const { tenant, prefix } = await arrange();
    await expectBatchRefused(
      tenant,
      [{ method: "POST", path: "/v1/projects", body: { name: "" } }, ...prefix.slice(0, 2)],
      400,
      "missing_field",
      { operation: 0 },
    );
  });

  it("the middle one: refused by the database (404), the write before it undone, the one after never run", async () => {
    const { tenant, prefix } = await arrange();
    await expectBatchRefused(
      tenant,
      [prefix[0]!, { method: "PATCH", path: `/v1/projects/${randomUUID()}`, body: { name: "x" } }, prefix[1]!],
      404,
      "not_found",
      { operation: 1 },
    );
  });

  it("a refused operation among 100: index 57", { timeout: 60_000 }, async () => {
    const { tenant, task } = await arrange();
    const operations: Operation[] = Array.from({ length: 100 }, (_, i) => ({
      method: "POST",
      path: "/v1/projects",
      body: projectBody({ name: `P${i}` }),
    }));
    operations[57] = { method: "PATCH", path: `/v1/tasks/${task.id}`, ifMatch: 3, body: { title: "x" } };
    await expectBatchRefused(tenant, operations, 412, "precondition_failed", { operation: 57, currentVersion: 1 });
  });
});

describe("scopes: each operation needs its single call's scope", () => {
  it("a key with projects.manage only: a task create at index 2 is 403 tasks.manage, and the project and milestone before it are not written", async () => {
    const tenant = await createTenant();
    const projectsOnly = await tenant.keyWith(["projects.manage"]);
    const { prefix } = await arrange(tenant);
    await expectBatchRefused({ key: projectsOnly.key, orgIds: [tenant.org.id] }, prefix.slice(0, 3), 403, "insufficient_scope", {
      scope: "tasks.manage",
      operation: 2,
    });
  });

  it("scope before body, within an operation: a key without tasks.manage sending a broken task is 403", async () => {
    const tenant = await createTenant();
    const projectsOnly = await tenant.keyWith(["projects.manage"]);
    await expectBatchRefused(
      { key: projectsOnly.key, orgIds: [tenant.org.id] },
      [
        { method: "POST", path: "/v1/projects", body: projectBody() },
        { method: "POST", path: "/v1/tasks", body: { title: 5 } },
      ],
      403,
      "insufficient_scope",
      {
        scope: "tasks.manage",
        operation: 1,
      },
    );
  });

  // Every kind of operation against a key holding every scope but the one it needs.
  const NEEDS: Array<[string, (t: Tenant) => Promise<Operation>, Parameters<Tenant["keyWith"]>[0][number]]> = [
    ["POST /v1/projects", async () => ({ method: "POST", path: "/v1/projects", body: projectBody() }), "projects.manage"],
    [
      "POST /v1/projects/:id/milestones",
      async (t) => ({ method: "POST", path: `/v1/projects/${(await t.insertProject()).id}/milestones`, body: milestoneBody() }),
      "projects.manage",
    ],
    [
      "PATCH /v1/milestones/:id",
      async (t) => ({
        method: "PATCH",
        path: `/v1/milestones/${(await t.insertMilestone((await t.insertProject()).id)).id}`,
        body: { name: "x" },
      }),
      "projects.manage",
    ],
    ["DELETE /v1/tasks/:id", async (t) => ({ method: "DELETE", path: `/v1/tasks/${(await t.insertTask()).id}` }), "tasks.manage"],
    [
      "PUT /v1/tasks/by-external-id/:externalId",
      async (t) => ({
        method: "PUT",
        path: `/v1/tasks/by-external-id/x-${unique()}`,
        body: { title: "T", projectId: (await t.insertProject()).id, assigneeId: (await t.insertPerson()).id, dueDate: "2026-06-30" },
      }),
      "tasks.manage",
    ],
    [
      "POST /v1/risks",
      async (t) => ({ method: "POST", path: "/v1/risks", body: { title: "R", projectId: (await t.insertProject()).id } }),
      "risks.manage",
    ],
    ["PATCH /v1/issues/:id", async () => ({ method: "PATCH", path: `/v1/issues/${randomUUID()}`, body: { title: "x" } }), "issues.manage"],
    [
      "PUT /v1/financial-entries/by-external-id/:externalId",
      async (t) => ({
        method: "PUT",
        path: `/v1/financial-entries/by-external-id/f-${unique()}`,
        body: { projectId: (await t.insertProject()).id, kind: "cost", amount: "1.00", currency: "EUR", date: "2026-03-31" },
      }),
      "financials.manage",
    ],
    ["POST /v1/personnel", async () => ({ method: "POST", path: "/v1/personnel", body: personBody() }), "organisation.manage"],
  ];
  for (const [name, operation, scope] of NEEDS) {
    it(`${name} needs ${scope}`, async () => {
      const tenant = await createTenant();
      const key = await tenant.keyWith(scopesWithout(scope));
      // Something the key may do first, so the refusal is the operation's, not the batch's.
      const allowed: Operation =
        scope === "organisation.manage"
          ? { method: "POST", path: "/v1/projects", body: projectBody() }
          : { method: "POST", path: "/v1/personnel", body: personBody() };
      const refused = await operation(tenant);
      const { response } = await expectBatchRefused(
        { key: key.key, orgIds: [tenant.org.id] },
        [allowed, refused],
        403,
        "insufficient_scope",
        { scope, operation: 1 },
      );
      expectSameRefusal(response, await singleCall(key.key, refused), 1);
    });
  }

  // Problems found before the database (a body, a path) still answer 401 and 403 first: the key,
  // then the scope of every operation up to the malformed one, in order.
  it("the first refused operation answers: a forbidden operation 0 before a malformed operation 1 is 403 at 0", async () => {
    const tenant = await createTenant();
    const projectsOnly = await tenant.keyWith(["projects.manage"]);
    const task = {
      title: "T",
      projectId: (await tenant.insertProject()).id,
      assigneeId: (await tenant.insertPerson()).id,
      dueDate: "2026-06-30",
    };
    await expectBatchRefused(
      { key: projectsOnly.key, orgIds: [tenant.org.id] },
      [
        { method: "POST", path: "/v1/tasks", body: task },
        { method: "POST", path: "/v1/projects", body: { name: "" } },
      ],
      403,
      "insufficient_scope",
      {
        scope: "tasks.manage",
        operation: 0,
      },
    );
  });
});

describe("the key: 401 before anything, whatever the operations", () => {
  const valid = (): Operation[] => [{ method: "POST", path: "/v1/projects", body: projectBody() }];
  const broken = (): Operation[] => [
    { method: "POST", path: "/v1/projects", body: { name: "" } },
    { method: "GET", path: "/v1/tasks" },
  ];
  const keys: Array<[string, (t: Tenant) => Promise<string | undefined>, string | readonly string[]]> = [
    ["no key", async () => undefined, "unauthorized"],
    ["a malformed key", async () => "ops_not-a-key", ["unauthorized", "invalid_key"]],
    ["a well-formed unknown key", async () => generateApiKey(), "invalid_key"],
    ["a revoked key", async (t) => (await t.revokedKey()).key, "invalid_key"],
  ];
  for (const [name, key, code] of keys) {
    for (const [bodyName, operations] of [
      ["operations that would commit", valid],
      ["operations that would be refused", broken],
    ] as const) {
      it(`${name}, ${bodyName}: 401, nothing written, no rate-limit headers`, async () => {
        const tenant = await createTenant();
        const sent = await key(tenant);
        const before = await snapshot(tenant.org.id);
        const response = await api("/v1/batch", { ...(sent === undefined ? {} : { key: sent }), body: { operations: operations() } });
        const body = expectError(response, 401, code);
        expect(body.error).not.toHaveProperty("operation");
        expect(response.headers.get("ratelimit-remaining")).toBeNull();
        expectNoTrace(before, await snapshot(tenant.org.id));
      });
    }
  }

  it("a key revoked between two batches: the second is 401 and writes nothing", async () => {
    const tenant = await createTenant();
    const key = await tenant.keyWith(["projects.manage"]);
    expect((await sendBatch(key.key, valid())).status).toBe(200);
    await query("update api_keys set revoked_at = now() where id = $1", [key.id]);
    const before = await snapshot(tenant.org.id);
    expectError(await sendBatch(key.key, valid()), 401, "invalid_key");
    expectNoTrace(before, await snapshot(tenant.org.id));
  });
});
