/* eslint-disable max-lines -- the same replay cases run for every create operation. */
import { beforeAll, describe, expect, it } from "vitest";
import type { Scope } from "../../domain/scopes.ts";
import { PRUNE_CRON } from "../../functions/sweep-plan.ts";
import { api, expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { sha256, upload } from "../helpers/attachments.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { MiB, sendPart, startUpload } from "../helpers/multipart.ts";
import { financialEntryBody, insertFinancialEntry, insertIssue, insertRisk, issueBody, riskBody } from "../helpers/project-records.ts";
import { runSweep } from "../helpers/realtime.ts";
import { expectOneWrite, milestoneBody, personBody, projectBody, taskBody, unique } from "../helpers/resources.ts";
import { checklistItemBody, commentBody, insertComment, labelBody } from "../helpers/work.ts";

// Idempotency-Key on POST (docs/api.md): the first response is stored with the
// record in the same statement; a replay within 24 h answers it again, byte for byte, with
// Idempotent-Replayed: true and writes nothing; the same key with another request is 422
// idempotency_mismatch; keys belong to the API key that sent them; concurrent duplicates create
// one record. Only a successful create is remembered, so a refused first attempt can be retried.

interface Create {
  /** The path, given the tenant (a parent record may be needed). */
  path: (tenant: Tenant) => Promise<string>;
  /** A body the tenant may send; `n` makes it different from another call's. */
  body: (tenant: Tenant, n: number) => Promise<Record<string, unknown>>;
  /** The event a create writes; null for writes that emit none (webhooks). */
  event: string | null;
  /** A field unique in the organisation (a person's email, a label's name), with its table and column. */
  unique?: { field: string; table: string; column: string };
  /** How the body goes, if not as JSON: an upload sends a file's bytes and states them in its query. */
  send?: (apiKey: string, path: string, body: Record<string, unknown>, headers: Record<string, string>) => Promise<ApiResponse>;
}

/** An upload of the file `body.text` names (files: test/attachments/). */
const uploadText: Create["send"] = (apiKey, path, body, headers) =>
  upload(apiKey, path, new TextEncoder().encode(String(body.text)), { name: "notes.txt", headers });

/** A record of each kind that holds files, by its collection. */
const FILE_PARENTS: Record<string, (t: Tenant) => Promise<string>> = {
  tasks: async (t) => (await t.insertTask()).id,
  comments: async (t) => insertComment(t, (await t.insertTask()).id),
  risks: (t) => insertRisk(t),
  issues: (t) => insertIssue(t),
  "financial-entries": (t) => insertFinancialEntry(t),
};

/**
 * The upload of a file to a record of each kind that holds them, and the start of a multipart
 * upload there (docs/attachments.md "Large files"): not a record, no event, but a replayed start
 * is the same upload, its size held against the quota once.
 */
const attachmentCreates = (): Record<string, Create> =>
  Object.fromEntries(
    Object.entries(FILE_PARENTS).flatMap(([collection, parent]) => [
      [
        `POST /v1/${collection}/:id/attachments`,
        {
          path: async (t: Tenant) => `/v1/${collection}/${await parent(t)}/attachments`,
          body: async (_: Tenant, n: number) => ({ text: `File ${n} ${unique()}` }),
          event: "attachment.created",
          send: uploadText,
        },
      ],
      [
        `POST /v1/${collection}/:id/attachment-uploads`,
        {
          path: async (t: Tenant) => `/v1/${collection}/${await parent(t)}/attachment-uploads`,
          body: async (_: Tenant, n: number) => ({
            name: `big-${n}.bin`,
            size: 6 * MiB + n,
            sha256: sha256(new TextEncoder().encode(unique())),
            partSize: 5 * MiB,
          }),
          event: null,
        },
      ],
    ]),
  );

/** A small file sent whole as the one part of a multipart upload under a new record of the kind: its complete's path. */
async function readyUpload(tenant: Tenant, collection: string): Promise<string> {
  const bytes = new TextEncoder().encode(`one part ${unique()}`);
  const record = `/v1/${collection}/${await FILE_PARENTS[collection]!(tenant)}`;
  const started = await startUpload(tenant.key, record, { size: bytes.length, sha256: sha256(bytes), partSize: 5 * MiB });
  const uploadPath = `${record}/attachment-uploads/${expectSuccess(started, 201).data.id}`;
  expectSuccess(await sendPart(tenant.key, uploadPath, 1, bytes));
  return `${uploadPath}/complete`;
}

/** A multipart upload's complete (no body: the request is its path, the upload), for each kind of record. */
const COMPLETES = Object.keys(FILE_PARENTS).map((collection) => ({
  operation: `POST /v1/${collection}/:id/attachment-uploads/:uploadId/complete`,
  ready: (t: Tenant) => readyUpload(t, collection),
}));

// Every POST that creates a record, keyed by the operation as GET /v1 lists it. The test below
// checks this table against GET /v1, so a new POST endpoint must be placed here or in NOT_CREATES.
const CREATES: Record<string, Create> = {
  "POST /v1/projects": {
    path: async () => "/v1/projects",
    body: async (_, n) => projectBody({ name: `Project ${n} ${unique()}` }),
    event: "project.created",
  },
  "POST /v1/projects/:id/milestones": {
    path: async (t) => `/v1/projects/${(await t.insertProject()).id}/milestones`,
    body: async (_, n) => milestoneBody({ name: `Milestone ${n}` }),
    event: "milestone.created",
  },
  "POST /v1/tasks": { path: async () => "/v1/tasks", body: (t, n) => taskBody(t, { title: `Task ${n}` }), event: "task.created" },
  "POST /v1/risks": { path: async () => "/v1/risks", body: (t, n) => riskBody(t, { title: `Risk ${n}` }), event: "risk.created" },
  "POST /v1/issues": { path: async () => "/v1/issues", body: (t, n) => issueBody(t, { title: `Issue ${n}` }), event: "issue.created" },
  "POST /v1/financial-entries": {
    path: async () => "/v1/financial-entries",
    body: (t, n) => financialEntryBody(t, { amount: `${100 + n}.25` }),
    event: "financialEntry.created",
  },
  "POST /v1/personnel": {
    path: async () => "/v1/personnel",
    body: async (_, n) => personBody({ name: `Person ${n}` }),
    event: "personnel.created",
    unique: { field: "email", table: "personnel", column: "email" },
  },
  "POST /v1/labels": {
    path: async () => "/v1/labels",
    body: async (_, n) => labelBody({ name: `Label ${n} ${unique()}` }),
    event: "label.created",
    unique: { field: "name", table: "labels", column: "name" },
  },
  "POST /v1/tasks/:id/comments": {
    path: async (t) => `/v1/tasks/${(await t.insertTask()).id}/comments`,
    body: async (_, n) => commentBody({ body: `Comment ${n}` }),
    event: "comment.created",
  },
  "POST /v1/tasks/:id/checklist-items": {
    path: async (t) => `/v1/tasks/${(await t.insertTask()).id}/checklist-items`,
    body: async (_, n) => checklistItemBody({ title: `Item ${n}` }),
    event: "checklistItem.created",
  },
  "POST /v1/webhooks": {
    path: async () => "/v1/webhooks",
    body: async (_, n) => ({ url: `http://127.0.0.1:9/opsroom/${n}/${unique()}`, events: ["task.*"] }),
    event: null,
  },
  ...attachmentCreates(),
};

/** POSTs that create no record, so replay nothing: Idempotency-Key is refused there (test/api/unused-inputs.test.ts). */
const NOT_CREATES = new Set([
  "POST /v1/realtime/tokens",
  "POST /v1/webhooks/:id/test",
  "POST /v1/webhooks/:id/deliveries/:deliveryId/redeliver",
  "POST /v1/webhooks/:id/replay",
  "POST /v1/webhooks/:id/rotate-secret",
  // A batch's Idempotency-Key covers the whole batch: test/batch/.
  "POST /v1/batch",
  // Adding a dependency twice changes nothing the second time: it needs no key.
  "POST /v1/tasks/:id/dependencies",
]);

const post = (tenantKey: string, path: string, body: unknown, idempotencyKey?: string) =>
  api(path, { key: tenantKey, body, ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } }) });

/** POST a multipart upload's complete (no body). */
const complete = (tenantKey: string, path: string, idempotencyKey?: string) =>
  api(path, {
    key: tenantKey,
    method: "POST",
    ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } }),
  });

/** The create's own way of sending its body, else post's. */
const sender =
  (create: Create) =>
  (tenantKey: string, path: string, body: Record<string, unknown>, idempotencyKey?: string): Promise<ApiResponse> =>
    create.send
      ? create.send(tenantKey, path, body, idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
      : post(tenantKey, path, body, idempotencyKey);

const idempotencyRows = (keyId: string) =>
  query<{ idempotency_key: string }>("select idempotency_key from idempotency_keys where key_id = $1", [keyId]);

/** The replay is the first response again: status, body text, ETag, plus Idempotent-Replayed. */
function expectReplayOf(replay: ApiResponse, first: ApiResponse) {
  expect(replay.status, replay.text.slice(0, 300)).toBe(first.status);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(first.headers.get("idempotent-replayed"), "the first response is not a replay").toBeNull();
  expect(replay.text, "the replay is byte for byte the first response").toBe(first.text);
  expect(replay.headers.get("etag")).toBe(first.headers.get("etag"));
  expect(replay.headers.get("content-type")).toBe(first.headers.get("content-type"));
}

describe("every POST that creates", () => {
  it("the table above covers every POST listed by GET /v1", async () => {
    const tenant = await createTenant();
    const self = await api("/v1", { key: tenant.key });
    expectSuccess(self);
    const operations: Array<{ method: string; path: string }> = self.body.operations;
    const posts = operations.filter((o) => o.method === "POST").map((o) => `${o.method} ${o.path}`);
    const completes = new Set(COMPLETES.map((c) => c.operation));
    expect(
      posts.filter((p) => !(p in CREATES) && !NOT_CREATES.has(p) && !completes.has(p)),
      "POST operations not classified here",
    ).toEqual([]);
  });

  for (const [operation, create] of Object.entries(CREATES)) {
    describe(operation, () => {
      const post = sender(create);
      let tenant: Tenant;
      beforeAll(async () => {
        tenant = await createTenant();
      });

      it("a replay answers the first response byte for byte, with Idempotent-Replayed, and writes nothing", async () => {
        const path = await create.path(tenant);
        const body = await create.body(tenant, 1);
        const key = `create-${unique()}`;
        const before = await snapshot(tenant.org.id);
        const first = await post(tenant.key, path, body, key);
        expectSuccess(first, 201);
        if (create.event) await expectOneWrite(tenant.org.id, before, create.event);
        const afterFirst = await snapshot(tenant.org.id);

        const replays = [await post(tenant.key, path, body, key), await post(tenant.key, path, body, key)];
        for (const replay of replays) expectReplayOf(replay, first);
        expectNoTrace(afterFirst, await snapshot(tenant.org.id));
      });

      it("the same key with another body: 422 idempotency_mismatch, nothing written", async () => {
        const path = await create.path(tenant);
        const key = `mismatch-${unique()}`;
        expectSuccess(await post(tenant.key, path, await create.body(tenant, 1), key), 201);
        const otherBody = await create.body(tenant, 2);
        const before = await snapshot(tenant.org.id);
        const other = await post(tenant.key, path, otherBody, key);
        expectError(other, 422, "idempotency_mismatch", { field: "Idempotency-Key" });
        expect(other.headers.get("idempotent-replayed")).toBeNull();
        expectNoTrace(before, await snapshot(tenant.org.id));
      });

      const only = create.unique;
      const twice = only ? `the second is a 409 on ${only.field}, and one record has it` : "creates twice";
      it(`without a key, the same body twice ${twice}`, async () => {
        const path = await create.path(tenant);
        const body = await create.body(tenant, 3);
        if (only) {
          // The field is unique within an organisation (a person's email, a label's name), so the
          // same body twice is not "two records": without a key, nothing tells a retry from a
          // second create, and the second is refused as a duplicate (409 conflict on the field),
          // writing nothing. That is what a client that retries without a key gets, so it is
          // asserted as such; exactly one record has the value.
          const first = expectSuccess(await post(tenant.key, path, body), 201).data;
          const before = await snapshot(tenant.org.id);
          expectError(await post(tenant.key, path, body), 409, "conflict", { field: only.field });
          expectNoTrace(before, await snapshot(tenant.org.id));
          const holders = await query(`select id from ${only.table} where org_id = $1 and ${only.column} = $2`, [
            tenant.org.id,
            body[only.field],
          ]);
          expect(holders).toEqual([{ id: first.id }]);
          return;
        }
        const [a, b] = [await post(tenant.key, path, body), await post(tenant.key, path, body)];
        expect(expectSuccess(a, 201).data.id).not.toBe(expectSuccess(b, 201).data.id);
      });
    });
  }
});

// A multipart upload's complete makes the attachment from the upload its path names, which it
// takes: a second complete without a key finds it gone (404). With the key, a complete retried
// after its answer was lost is answered that attachment again; the key on another request is 422.
describe("every multipart complete", () => {
  for (const { operation, ready } of COMPLETES) {
    describe(operation, () => {
      let tenant: Tenant;
      beforeAll(async () => {
        tenant = await createTenant();
      });

      it("a retried complete answers the first attachment byte for byte, with Idempotent-Replayed, and writes nothing", async () => {
        const path = await ready(tenant);
        const key = `complete-${unique()}`;
        const before = await snapshot(tenant.org.id);
        const first = await complete(tenant.key, path, key);
        expectSuccess(first, 201);
        await expectOneWrite(tenant.org.id, before, "attachment.created");
        const afterFirst = await snapshot(tenant.org.id);
        for (const replay of [await complete(tenant.key, path, key), await complete(tenant.key, path, key)]) expectReplayOf(replay, first);
        expectNoTrace(afterFirst, await snapshot(tenant.org.id));
        // Without the key, the upload is gone.
        expectError(await complete(tenant.key, path), 404, "not_found");
      });

      it("the same key on another upload's complete: 422 idempotency_mismatch, that upload not taken", async () => {
        const [path, other] = [await ready(tenant), await ready(tenant)];
        const key = `complete-mismatch-${unique()}`;
        expectSuccess(await complete(tenant.key, path, key), 201);
        const before = await snapshot(tenant.org.id);
        const refused = await complete(tenant.key, other, key);
        expectError(refused, 422, "idempotency_mismatch", { field: "Idempotency-Key" });
        expect(refused.headers.get("idempotent-replayed")).toBeNull();
        expectNoTrace(before, await snapshot(tenant.org.id));
        // With a key of its own it completes.
        expectSuccess(await complete(tenant.key, other, `complete-other-${unique()}`), 201);
      });
    });
  }
});

describe("the replayed response", () => {
  it("is the first one even after the record changed or was deleted", async () => {
    const tenant = await createTenant();
    const key = `later-${unique()}`;
    const body = projectBody();
    const first = await post(tenant.key, "/v1/projects", body, key);
    const id = expectSuccess(first, 201).data.id;
    expectSuccess(await api(`/v1/projects/${id}`, { key: tenant.key, method: "PATCH", body: { name: "Renamed" } }));
    expectReplayOf(await post(tenant.key, "/v1/projects", body, key), first);
    expectSuccess(await api(`/v1/projects/${id}`, { key: tenant.key, method: "DELETE" }));
    const before = await snapshot(tenant.org.id);
    expectReplayOf(await post(tenant.key, "/v1/projects", body, key), first);
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("of a webhook carries its secret again, to the same key only: the creating call's answer", async () => {
    const tenant = await createTenant();
    const key = `hook-${unique()}`;
    const body = { url: `http://127.0.0.1:9/${unique()}` };
    const first = await post(tenant.key, "/v1/webhooks", body, key);
    expect(expectSuccess(first, 201).data.secret).toMatch(/^whsec_/);
    expectReplayOf(await post(tenant.key, "/v1/webhooks", body, key), first);
  });
});

describe("what a key is", () => {
  it("the same key at another endpoint: 422, nothing written (a body that endpoint refuses is a 400 first)", async () => {
    const tenant = await createTenant();
    const key = `path-${unique()}`;
    const person = personBody();
    expectSuccess(await post(tenant.key, "/v1/personnel", person, key), 201);
    const before = await snapshot(tenant.org.id);
    expectError(await post(tenant.key, "/v1/projects", projectBody(), key), 422, "idempotency_mismatch", { field: "Idempotency-Key" });
    expectError(await post(tenant.key, "/v1/projects", person, key), 400, "missing_field");
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("a body that differs only in whitespace or key order is another request: 422", async () => {
    const tenant = await createTenant();
    const key = `bytes-${unique()}`;
    const body = projectBody();
    expectSuccess(await api("/v1/projects", { key: tenant.key, rawBody: JSON.stringify(body), headers: { "idempotency-key": key } }), 201);
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()));
    expectError(
      await api("/v1/projects", { key: tenant.key, rawBody: reordered, headers: { "idempotency-key": key } }),
      422,
      "idempotency_mismatch",
    );
  });

  it("keys belong to the API key that sent them: another key of the organisation, or of another one, is independent", async () => {
    const tenant = await createTenant();
    const second = await tenant.keyWith(["projects.manage"]);
    const stranger = await createTenant();
    const key = `shared-${unique()}`;
    const body = projectBody();
    const ids = [];
    for (const apiKey of [tenant.key, second.key, stranger.key]) {
      const response = await post(apiKey, "/v1/projects", body, key);
      expect(response.headers.get("idempotent-replayed")).toBeNull();
      ids.push(expectSuccess(response, 201).data.id);
    }
    expect(new Set(ids).size).toBe(3);
    expect((await snapshot(tenant.org.id)).rows.projects).toBe(2);
    expect((await snapshot(stranger.org.id)).rows.projects).toBe(1);
    // And each key's replay answers its own first response.
    expect(expectSuccess(await post(second.key, "/v1/projects", body, key), 201).data.id).toBe(ids[1]);
  });

  it("a refused first attempt is not remembered: the same key with a corrected body creates", async () => {
    const tenant = await createTenant();
    const key = `retry-${unique()}`;
    const before = await snapshot(tenant.org.id);
    expectError(await post(tenant.key, "/v1/projects", projectBody({ budget: -1 }), key), 400, "invalid_field");
    expectError(
      await post(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10" }), key),
      400,
      "invalid_reference",
    );
    const afterFixtures = await snapshot(tenant.org.id);
    expect(afterFixtures.changeVersion).toBe(before.changeVersion);
    expect(await idempotencyRows(tenant.keyId)).toEqual([]);
    const created = await post(tenant.key, "/v1/projects", projectBody(), key);
    expectSuccess(created, 201);
    expect(created.headers.get("idempotent-replayed")).toBeNull();
  });

  it("a 403 is not remembered either, and a key without the scope cannot replay another's response", async () => {
    const tenant = await createTenant();
    const reader = await tenant.keyWith(["projects.read"]);
    const key = `scope-${unique()}`;
    const body = projectBody();
    expectSuccess(await post(tenant.key, "/v1/projects", body, key), 201);
    expectError(await post(reader.key, "/v1/projects", body, key), 403, "insufficient_scope");
    expect(await idempotencyRows(reader.id)).toEqual([]);
  });

  it("after 24 hours a key is forgotten: the same key creates again", async () => {
    const tenant = await createTenant();
    const key = `old-${unique()}`;
    const body = projectBody();
    const first = expectSuccess(await post(tenant.key, "/v1/projects", body, key), 201).data;
    await query("update idempotency_keys set created_at = now() - interval '25 hours' where key_id = $1", [tenant.keyId]);
    const before = await snapshot(tenant.org.id);
    const again = await post(tenant.key, "/v1/projects", body, key);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(expectSuccess(again, 201).data.id).not.toBe(first.id);
    await expectOneWrite(tenant.org.id, before, "project.created");
    // The new response is the one remembered now.
    expect(expectSuccess(await post(tenant.key, "/v1/projects", body, key), 201).data.id).toBe(again.body.data.id);
  });

  it("the sweep drops the responses stored more than 24 hours ago, and keeps the others", async () => {
    const tenant = await createTenant();
    const [old, recent] = [`swept-${unique()}`, `kept-${unique()}`];
    expectSuccess(await post(tenant.key, "/v1/projects", projectBody(), old), 201);
    expectSuccess(await post(tenant.key, "/v1/projects", projectBody(), recent), 201);
    await query(
      "update idempotency_keys set created_at = now() - interval '24 hours 1 minute' where key_id = $1 and idempotency_key = $2",
      [tenant.keyId, old],
    );
    await query(
      "update idempotency_keys set created_at = now() - interval '23 hours 59 minutes' where key_id = $1 and idempotency_key = $2",
      [tenant.keyId, recent],
    );
    // The prunes run after the scheduled handler answers (waitUntil).
    await runSweep(PRUNE_CRON);
    const stored = async () =>
      (await query<{ idempotency_key: string }>("select idempotency_key from idempotency_keys where key_id = $1", [tenant.keyId])).map(
        (row) => row.idempotency_key,
      );
    await expect.poll(stored, { timeout: 15_000 }).toEqual([recent]);
  });
});

describe("concurrent duplicates", () => {
  it("20 concurrent requests with one key create exactly one record; all answer it, 19 as replays", async () => {
    const tenant = await createTenant();
    const key = `burst-${unique()}`;
    const body = await taskBody(tenant);
    const before = await snapshot(tenant.org.id);
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(tenant.key, "/v1/tasks", body, key)));
    const unexpected = responses.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
    expect(unexpected).toEqual([]);
    expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
    expect(responses.filter((r) => r.headers.get("idempotent-replayed") === "true").length).toBe(19);
    const original = responses.find((r) => r.headers.get("idempotent-replayed") === null)!;
    for (const replay of responses.filter((r) => r !== original)) expect(replay.text).toBe(original.text);
    await expectOneWrite(tenant.org.id, before, "task.created");
    expect((await snapshot(tenant.org.id)).rows.tasks).toBe(before.rows.tasks! + 1);
  });

  it("20 concurrent requests with one key and different bodies: one record, the other 19 are 422", async () => {
    const tenant = await createTenant();
    const key = `race-${unique()}`;
    const before = await snapshot(tenant.org.id);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(tenant.key, "/v1/projects", projectBody({ name: `Racer ${i}` }), key)),
    );
    const created = responses.filter((r) => r.status === 201);
    const mismatched = responses.filter((r) => r.status === 422);
    expect(created.length + mismatched.length, responses.map((r) => r.status).join(",")).toBe(20);
    expect(created.length).toBe(1);
    for (const response of mismatched) expectError(response, 422, "idempotency_mismatch");
    await expectOneWrite(tenant.org.id, before, "project.created");
  });
});

describe("the Idempotency-Key header", () => {
  const invalid: Array<[string, string]> = [
    ["256 characters", "k".repeat(256)],
    ["a space", "two words"],
    ["a tab", "tab\there"],
    ["only spaces", "   x y   "],
    ["non-ASCII", "clé-é"],
  ];
  for (const [label, value] of invalid) {
    it(`with ${label}: 400 invalid_field naming Idempotency-Key, nothing written`, async () => {
      const tenant = await createTenant();
      const before = await snapshot(tenant.org.id);
      const response = await api("/v1/projects", {
        key: tenant.key,
        body: projectBody(),
        // Bytes above 0x7f go as latin-1 in a header value; fetch wants them as a ByteString.
        headers: { "idempotency-key": Buffer.from(value, "utf8").toString("latin1") },
      });
      expectError(response, 400, "invalid_field", { field: "Idempotency-Key" });
      expectNoTrace(before, await snapshot(tenant.org.id));
    });
  }

  it("an empty value: 400 invalid_field naming Idempotency-Key", async () => {
    const tenant = await createTenant();
    const before = await snapshot(tenant.org.id);
    expectError(
      await api("/v1/projects", { key: tenant.key, body: projectBody(), headers: { "idempotency-key": "" } }),
      400,
      "invalid_field",
      {
        field: "Idempotency-Key",
      },
    );
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("255 visible characters are a valid key, and are replayed", async () => {
    const tenant = await createTenant();
    const key = `${unique()}-${"!~#$%&'*+-.^_`|".repeat(20)}`.slice(0, 255);
    expect(key.length).toBe(255);
    const body = projectBody();
    const first = await post(tenant.key, "/v1/projects", body, key);
    expectSuccess(first, 201);
    expectReplayOf(await post(tenant.key, "/v1/projects", body, key), first);
  });

  it("a bad key is refused after the API key and scope: 401 and 403 come first", async () => {
    const tenant = await createTenant();
    const reader = await tenant.keyWith(["projects.read"] as Scope[]);
    expectError(await api("/v1/projects", { body: projectBody(), headers: { "idempotency-key": "bad key" } }), 401, "unauthorized");
    expectError(
      await api("/v1/projects", { key: reader.key, body: projectBody(), headers: { "idempotency-key": "bad key" } }),
      403,
      "insufficient_scope",
    );
  });

  it("is ignored on PATCH and DELETE (only POST creates are idempotent by key)", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const response = await api(`/v1/projects/${project.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { name: "x" },
      headers: { "idempotency-key": "bad key" },
    });
    expectSuccess(response);
    expect(await idempotencyRows(tenant.keyId)).toEqual([]);
  });
});
