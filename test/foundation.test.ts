import { readFileSync } from "node:fs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER, runMigrations } from "../db/migrate.ts";
import { uuidv7 } from "../domain/ids.ts";
import { api, expectSuccess } from "./helpers/api.ts";
import { expectNoTrace, query, snapshot, withScratchDatabase } from "./helpers/database.ts";
import { createTenant } from "./helpers/fixtures.ts";
import { describeRefusals } from "./helpers/refusals.ts";

// GET /v1 (docs/api.md "The self-description"), and the database
// foundations every route relies on: migrations that can be re-applied, tenancy enforced by
// foreign keys.

/** docs/api.md "Keys and scopes": the labels are part of the contract, so they are written out here. */
const LABELS = {
  "organisation.read": "Read the organisation",
  "organisation.manage": "Manage the organisation",
  "projects.read": "Read projects and milestones",
  "projects.manage": "Create and change projects and milestones",
  "tasks.read": "Read tasks",
  "tasks.manage": "Create and change tasks",
  "risks.read": "Read risks",
  "risks.manage": "Create and change risks",
  "issues.read": "Read issues",
  "issues.manage": "Create and change issues",
  "financials.read": "Read financial entries and project finances",
  "financials.manage": "Create and change financial entries",
  "webhooks.read": "Read webhooks",
  "webhooks.manage": "Register and change webhooks",
  "audit.read": "Read the audit log",
} as const;

const byScope = (a: { scope: string }, b: { scope: string }) => a.scope.localeCompare(b.scope);
const labelled = (scopes: Array<keyof typeof LABELS>) => scopes.map((scope) => ({ scope, label: LABELS[scope] })).sort(byScope);

const journal = JSON.parse(readFileSync(`${MIGRATIONS_FOLDER}/meta/_journal.json`, "utf8")) as { entries: unknown[] };

interface Operation {
  method: string;
  path: string;
  scope: string | null;
  summary: string;
}

describeRefusals({ method: "GET", path: () => "/v1", scope: null });

describe("GET /v1", () => {
  it("describes the key's organisation, application and the API", async () => {
    const granted = ["organisation.manage", "projects.manage", "tasks.manage", "webhooks.manage"] as const;
    const tenant = await createTenant({ scopes: granted, application: "Ops dashboard" });
    const before = await snapshot(tenant.org.id);
    const response = await api("/v1", { key: tenant.key });
    const body = expectSuccess(response) as unknown as Record<string, unknown>;

    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(body).toMatchObject({
      success: true,
      version: "v1",
      changeVersion: 0,
      organisation: tenant.org.id,
      application: "Ops dashboard",
    });
    expect(Number.isInteger(body.changeVersion)).toBe(true);
    // Each .manage brings its .read, each with its label.
    expect((body.scopes as Array<{ scope: string }>).slice().sort(byScope)).toEqual(
      labelled([...granted, "organisation.read", "projects.read", "tasks.read", "webhooks.read"]),
    );
    expect(body.realtime).toEqual({ namespace: "/v1", how: expect.any(String), url: expect.any(String) });
    expect((body.realtime as { how: string }).how.length).toBeGreaterThan(0);
    expect(() => new URL((body.realtime as { url: string }).url)).not.toThrow();
    // Reading the description is not a change.
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("labels every scope of a key holding all of them", async () => {
    const tenant = await createTenant();
    const body = (await api("/v1", { key: tenant.key })).body as { scopes: Array<{ scope: string; label: string }> };
    expect(body.scopes.map((s) => s.scope).sort()).toEqual([...tenant.scopes].sort());
    expect(body.scopes.slice().sort(byScope)).toEqual(labelled(tenant.scopes as Array<keyof typeof LABELS>));
  });

  it("lists exactly the scopes the key holds, implied .read included", async () => {
    const tenant = await createTenant({ scopes: ["tasks.manage"] });
    const body = (await api("/v1", { key: tenant.key })).body;
    expect(body.scopes.slice().sort(byScope)).toEqual(labelled(["tasks.manage", "tasks.read"]));

    const mixed = await tenant.keyWith(["projects.read", "webhooks.manage", "organisation.read"]);
    const mixedBody = (await api("/v1", { key: mixed.key })).body;
    expect(mixedBody.scopes.slice().sort(byScope)).toEqual(
      labelled(["organisation.read", "projects.read", "webhooks.manage", "webhooks.read"]),
    );
  });

  it("reports the organisation's current changeVersion", async () => {
    const tenant = await createTenant();
    await query("update organisations set change_version = 7 where id = $1", [tenant.org.id]);
    const body = expectSuccess(await api("/v1", { key: tenant.key })) as unknown as { changeVersion: unknown };
    expect(body.changeVersion).toBe(7);
  });

  it("lists every operation with method, path, scope and summary", async () => {
    const tenant = await createTenant({ scopes: ["tasks.read"] });
    const body = (await api("/v1", { key: tenant.key })).body;
    const operations = body.operations as Operation[];
    expect(Array.isArray(operations)).toBe(true);
    expect(operations.length).toBeGreaterThan(0);
    for (const operation of operations) {
      expect(operation).toEqual({
        method: expect.stringMatching(/^(GET|POST|PATCH|PUT|DELETE)$/),
        path: expect.stringMatching(/^\/v1(\/|$)/),
        scope: operation.scope === null ? null : expect.stringMatching(/^[a-z]+\.(read|manage)$/),
        summary: expect.any(String),
      });
      expect(operation.summary.length).toBeGreaterThan(0);
    }
    // Every operation is listed whatever the key may call; path parameters as :name or {name}.
    const listed = operations.map((o) => `${o.method} ${o.path.replace(/\{(\w+)\}/g, ":$1")} ${o.scope}`);
    expect(listed).toEqual(
      expect.arrayContaining([
        "GET /v1/tasks tasks.read",
        "POST /v1/tasks tasks.manage",
        "PATCH /v1/tasks/:id tasks.manage",
        "GET /v1/projects projects.read",
        "POST /v1/projects projects.manage",
        "GET /v1/projects/:id projects.read",
        "PATCH /v1/projects/:id projects.manage",
        "GET /v1/projects/:id/milestones projects.read",
        "POST /v1/projects/:id/milestones projects.manage",
        "PATCH /v1/milestones/:id projects.manage",
        "GET /v1/personnel organisation.read",
      ]),
    );
    expect(listed.some((entry) => entry.startsWith("GET /v1 "))).toBe(true);
  });
});

describe("database foundations", () => {
  it("migrates an empty database, and a second run changes nothing", async () => {
    // A scratch database: the migrator's transaction must not share a session with other tests.
    await withScratchDatabase(async (url) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const read = async () => ({
          schema: (
            await client.query(
              `select table_name, column_name, data_type, is_nullable, column_default
                 from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`,
            )
          ).rows,
          constraints: (
            await client.query(
              `select conrelid::regclass::text as "table", conname, pg_get_constraintdef(oid) as definition
                 from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`,
            )
          ).rows,
          applied: (await client.query("select hash, created_at from drizzle.__drizzle_migrations order by id")).rows,
        });

        await runMigrations(url);
        const first = await read();
        expect(first.applied.length).toBe(journal.entries.length);
        expect(first.schema.map((c) => c.table_name)).toEqual(expect.arrayContaining(["organisations", "tasks", "events"]));

        await runMigrations(url);
        expect(await read()).toEqual(first);
      } finally {
        await client.end();
      }
    });
  }, 90_000); // a fresh PGlite and two migration runs: seconds on a loaded 2-core machine

  it("the test database has every migration applied", async () => {
    const applied = await query("select hash from drizzle.__drizzle_migrations");
    expect(applied.length).toBe(journal.entries.length);
  });

  it("refuses references across organisations (tenancy is enforced by the schema)", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const [personA, projectA, projectB, personB] = [
      await a.insertPerson(),
      await a.insertProject(),
      await b.insertProject(),
      await b.insertPerson(),
    ];
    const milestoneB = await b.insertMilestone(projectB.id);
    const otherProjectA = await a.insertProject();
    const milestoneOfOtherProject = await a.insertMilestone(otherProjectA.id);

    const insertTask = (fields: { projectId: string; assigneeId: string; milestoneId?: string }) =>
      query(
        `insert into tasks (id, org_id, project_id, assignee_id, milestone_id, title, due_date)
         values ($1, $2, $3, $4, $5, 'Cross-tenant', '2026-06-30')`,
        [uuidv7(), a.org.id, fields.projectId, fields.assigneeId, fields.milestoneId ?? null],
      );
    const violation = (constraint: string) => expect.objectContaining({ code: "23503", constraint });

    await expect(insertTask({ projectId: projectB.id, assigneeId: personA.id })).rejects.toEqual(violation("tasks_project_fk"));
    await expect(insertTask({ projectId: projectA.id, assigneeId: personB.id })).rejects.toEqual(violation("tasks_assignee_fk"));
    await expect(insertTask({ projectId: projectA.id, assigneeId: personA.id, milestoneId: milestoneB.id })).rejects.toEqual(
      violation("tasks_milestone_fk"),
    );
    // Same organisation, but the milestone belongs to another project.
    await expect(insertTask({ projectId: projectA.id, assigneeId: personA.id, milestoneId: milestoneOfOtherProject.id })).rejects.toEqual(
      violation("tasks_milestone_fk"),
    );
    await expect(
      query("insert into milestones (id, org_id, project_id, name, due_date) values ($1, $2, $3, 'x', '2026-06-30')", [
        uuidv7(),
        a.org.id,
        projectB.id,
      ]),
    ).rejects.toEqual(violation("milestones_project_fk"));

    // The same insert inside one organisation is accepted: the refusals above are about tenancy.
    await expect(insertTask({ projectId: projectA.id, assigneeId: personA.id })).resolves.toBeDefined();
    expect((await snapshot(b.org.id)).rows.tasks).toBe(0);
  });
});
