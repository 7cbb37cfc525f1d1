/* eslint-disable max-lines -- every operation GET /v1 lists is probed with the two organisations' records beforeAll makes, each operation a test of its own. */
import { beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "../../domain/ids.ts";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { sha256, upload } from "../helpers/attachments.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { financialEntryBody, insertFinancialEntry, insertIssue, insertRisk, issueBody, riskBody } from "../helpers/project-records.ts";
import { milestoneBody, personBody, projectBody, taskBody } from "../helpers/resources.ts";
import { checklistItemBody, commentBody, insertChecklistItems, insertComment, insertLabel, labelBody } from "../helpers/work.ts";

// Cross-organisation probing of every operation (docs/api.md "404 ... an id of another
// organisation (never reveal it exists)"). test/api/isolation.test.ts covers projects, milestones,
// tasks and personnel by hand; this file takes the list of operations from GET /v1 itself, so an
// endpoint added later is probed without an edit here (or fails, naming what it lacks):
//
//   - every operation with a path id, called by organisation B (a key holding every scope) with
//     organisation A's ids, each id in turn: 404 not_found, and neither organisation changes;
//   - every read without a path id shows B's data only, and filters naming A's ids find nothing;
//   - every write whose body names records (projectId, assigneeId...) refuses A's ids with
//     400 invalid_reference naming the field, and neither organisation changes.

interface Operation {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
}

type Kind =
  | "project"
  | "milestone"
  | "task"
  | "blocker"
  | "label"
  | "comment"
  | "checklistItem"
  | "risk"
  | "issue"
  | "financialEntry"
  | "person"
  | "webhook"
  | "delivery"
  | `${AttachedKind}Attachment`
  | `${AttachedKind}Upload`;

/** The kinds of record files are attached to (a file's path names its record, and the file: :attachmentId; a multipart upload: :uploadId). */
const ATTACHED = ["task", "comment", "risk", "issue", "financialEntry"] as const;
type AttachedKind = (typeof ATTACHED)[number];

/** What the id in a path names, by the path's first segment (and :deliveryId, :blockerId). */
const PATH_KINDS: Record<string, Kind> = {
  projects: "project",
  milestones: "milestone",
  tasks: "task",
  labels: "label",
  comments: "comment",
  "checklist-items": "checklistItem",
  risks: "risk",
  issues: "issue",
  "financial-entries": "financialEntry",
  personnel: "person",
  webhooks: "webhook",
  // GET /v1/attachments/{id}/content: a task's file stands for them all.
  attachments: "taskAttachment",
};

/** What a body or query field naming a record names. */
const FIELD_KINDS: Record<string, Kind> = {
  projectId: "project",
  milestoneId: "milestone",
  assigneeId: "person",
  ownerId: "person",
  reporterId: "person",
  parentId: "task",
  blockedBy: "task",
  taskId: "task",
  labelId: "label",
  // The feed's filter names any record: a task stands for them all.
  recordId: "task",
  // The audit log's actor filter names a key, a person or an app: a person stands for them all.
  actor: "person",
};

/** A body the operation accepts from `tenant`, given the records in its path. */
const BODIES: Record<string, (tenant: Tenant, ids: Records) => Promise<Record<string, unknown>> | Record<string, unknown>> = {
  "POST /v1/projects": () => projectBody(),
  "PATCH /v1/projects/:id": () => ({ name: "Taken over" }),
  "POST /v1/projects/:id/milestones": () => milestoneBody(),
  "PATCH /v1/milestones/:id": () => ({ name: "Taken over" }),
  "POST /v1/tasks": (t, r) => taskBody(t, { projectId: r.project, assigneeId: r.person, milestoneId: r.milestone }),
  "PATCH /v1/tasks/:id": () => ({ title: "Taken over" }),
  "POST /v1/risks": (t, r) => riskBody(t, { projectId: r.project, ownerId: r.person }),
  "PATCH /v1/risks/:id": () => ({ title: "Taken over" }),
  "POST /v1/issues": (t, r) => issueBody(t, { projectId: r.project, reporterId: r.person, assigneeId: r.person }),
  "PATCH /v1/issues/:id": () => ({ title: "Taken over" }),
  "POST /v1/financial-entries": (t, r) => financialEntryBody(t, { projectId: r.project }),
  "PATCH /v1/financial-entries/:id": () => ({ description: "Taken over" }),
  "POST /v1/personnel": () => personBody(),
  "PUT /v1/projects/by-external-id/:externalId": () => projectBody(),
  "PUT /v1/milestones/by-external-id/:externalId": (_, r) => milestoneBody({ projectId: r.project }),
  "PUT /v1/tasks/by-external-id/:externalId": (t, r) =>
    taskBody(t, { projectId: r.project, assigneeId: r.person, milestoneId: r.milestone }),
  "PUT /v1/risks/by-external-id/:externalId": (t, r) => riskBody(t, { projectId: r.project, ownerId: r.person }),
  "PUT /v1/issues/by-external-id/:externalId": (t, r) => issueBody(t, { projectId: r.project, reporterId: r.person, assigneeId: r.person }),
  "PUT /v1/financial-entries/by-external-id/:externalId": (t, r) => financialEntryBody(t, { projectId: r.project }),
  "PUT /v1/personnel/by-external-id/:externalId": () => personBody(),
  "POST /v1/tasks/:id/dependencies": (_, r) => ({ blockedBy: r.blocker }),
  "POST /v1/labels": () => labelBody(),
  "PATCH /v1/labels/:id": () => ({ name: `Taken over ${uuidv7()}` }),
  "PUT /v1/labels/by-external-id/:externalId": () => labelBody(),
  "POST /v1/tasks/:id/comments": () => commentBody(),
  "PATCH /v1/comments/:id": () => ({ body: "Taken over" }),
  "PUT /v1/comments/by-external-id/:externalId": (_, r) => commentBody({ taskId: r.task }),
  "POST /v1/tasks/:id/checklist-items": () => checklistItemBody(),
  "PATCH /v1/checklist-items/:id": () => ({ title: "Taken over" }),
  "PUT /v1/checklist-items/by-external-id/:externalId": (_, r) => checklistItemBody({ taskId: r.task }),
  "POST /v1/batch": () => ({ operations: [{ method: "POST", path: "/v1/projects", body: projectBody() }] }),
  "PATCH /v1/personnel/:id": () => ({ role: "Taken over" }),
  "POST /v1/realtime/tokens": () => ({}),
  // A closed loopback port: nothing leaves the machine.
  "POST /v1/webhooks": () => ({ url: "http://127.0.0.1:9/isolation" }),
  "PATCH /v1/webhooks/:id": () => ({ description: "Taken over" }),
  "POST /v1/webhooks/:id/replay": () => ({ after: 0 }),
  "POST /v1/webhooks/:id/rotate-secret": () => ({}),
  // An upload's body is the file's bytes: these, as JSON, with the query stating them (QUERIES).
  ...Object.fromEntries(ATTACHED.map((kind) => [`POST /v1/${collectionOf(kind)}/:id/attachments`, () => ({ file: "isolation" })])),
  // A multipart upload's start states the file (docs/attachments.md "Large files"); a part's body is
  // its bytes, these as JSON: the whole of the file each arranged upload states (PART).
  ...Object.fromEntries(
    ATTACHED.map((kind) => [`POST /v1/${collectionOf(kind)}/:id/attachment-uploads`, () => ({ name: "isolation.bin", ...PART_FILE })]),
  ),
  ...Object.fromEntries(
    ATTACHED.map((kind) => [`PUT /v1/${collectionOf(kind)}/:id/attachment-uploads/:uploadId/parts/:partNumber`, () => PART]),
  ),
};

/** A multipart upload's one part, sent as JSON: the file every arranged upload states, in one part of 5 MiB at most. */
const PART = { part: "isolation" };
const PART_BYTES = new TextEncoder().encode(JSON.stringify(PART));
const PART_FILE = { size: PART_BYTES.byteLength, sha256: sha256(PART_BYTES), partSize: 5 * 1024 * 1024 };

/** The query a call needs besides its path: an upload's statement of its bytes, a download's signed link (B's own). */
const QUERIES: Record<string, (body: unknown, ids: Records) => Promise<string> | string> = {
  ...Object.fromEntries(
    ATTACHED.map((kind) => [
      `POST /v1/${collectionOf(kind)}/:id/attachments`,
      (body: unknown) => {
        const bytes = new TextEncoder().encode(JSON.stringify(body));
        return `?${new URLSearchParams({ name: "isolation.json", size: String(bytes.byteLength), sha256: sha256(bytes) })}`;
      },
    ]),
  ),
  "GET /v1/attachments/:id/content": (_, r) => r.downloadQuery,
  ...Object.fromEntries(
    ATTACHED.map((kind) => [
      `PUT /v1/${collectionOf(kind)}/:id/attachment-uploads/:uploadId/parts/:partNumber`,
      () => `?sha256=${PART_FILE.sha256}`,
    ]),
  ),
};

function collectionOf(kind: AttachedKind): string {
  return Object.entries(PATH_KINDS).find(([, k]) => k === kind)![0];
}

/** Each kind's record, and (downloadQuery) the signed query of a link to the organisation's task's file. */
type Records = Record<Kind | "downloadQuery", string>;

/**
 * One record of every kind in the tenant's organisation, linked as the API would link them; with
 * `files`, a file on each record that holds them (uploads: made only for the calls that name one).
 */
async function arrange(tenant: Tenant, files = false): Promise<Records> {
  const project = await tenant.insertProject();
  const person = await tenant.insertPerson();
  const milestone = await tenant.insertMilestone(project.id);
  const task = await tenant.insertTask({ projectId: project.id, assigneeId: person.id, milestoneId: milestone.id });
  // The task waits for another, has a label, a comment and a checklist item.
  const blocker = await tenant.insertTask({ projectId: project.id, assigneeId: person.id });
  const label = await insertLabel(tenant);
  await query("update tasks set blocked_by = array[$2::uuid], label_ids = array[$3::uuid] where id = $1", [task.id, blocker.id, label]);
  const webhook = expectSuccess(await api("/v1/webhooks", { key: tenant.key, body: { url: "http://127.0.0.1:9/isolation" } }), 201).data;
  const [delivery] = await query<{ id: string }>(
    `insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type, attempt, outcome)
     values ($1, $2, $3, $4, 'webhook.test', 1, 'failed') returning id`,
    [uuidv7(), tenant.org.id, webhook.id, uuidv7()],
  );
  const records = {
    project: project.id,
    person: person.id,
    milestone: milestone.id,
    task: task.id,
    blocker: blocker.id,
    label,
    comment: await insertComment(tenant, task.id),
    checklistItem: (await insertChecklistItems(tenant, task.id))[0]!,
    risk: await insertRisk(tenant, { project_id: project.id, owner_id: person.id }),
    issue: await insertIssue(tenant, { project_id: project.id }),
    financialEntry: await insertFinancialEntry(tenant, { project_id: project.id }),
    webhook: webhook.id,
    delivery: delivery!.id,
  };
  return { ...records, ...(await arrangeFiles(tenant, records, files)) };
}

/**
 * A small file on each kind of record, uploaded (its bytes are in R2), a multipart upload started on
 * each (no part yet), and a live link to the task's file; else ids of none.
 */
async function arrangeFiles(tenant: Tenant, records: Record<AttachedKind, string>, withBytes = true) {
  const files = {} as Record<`${AttachedKind}${"Attachment" | "Upload"}`, string>;
  for (const kind of ATTACHED) {
    const path = `/v1/${collectionOf(kind)}/${records[kind]}/attachments`;
    files[`${kind}Attachment`] = withBytes
      ? expectSuccess(await upload(tenant.key, path, new TextEncoder().encode(kind)), 201).data.id
      : uuidv7();
    const start = { key: tenant.key, body: { name: "isolation.bin", ...PART_FILE } };
    files[`${kind}Upload`] = withBytes
      ? expectSuccess(await api(`/v1/${collectionOf(kind)}/${records[kind]}/attachment-uploads`, start), 201).data.id
      : uuidv7();
  }
  if (!withBytes) return { ...files, downloadQuery: "" };
  const read = await api(`/v1/tasks/${records.task}/attachments/${files.taskAttachment}`, { key: tenant.key });
  return { ...files, downloadQuery: new URL(expectSuccess(read).data.downloadUrl).search };
}

/** A path that names a record by its external id: another organisation's external id names nothing of it. */
const byExternalId = (op: Operation) => op.path.includes(":externalId");

function paramKinds(op: Operation): Array<[param: string, kind: Kind]> {
  const segment = op.path.split("/")[2]!;
  return (
    (op.path.match(/:\w+/g) ?? [])
      // An external id names nothing of another organisation; a part's number is a place, not an id (PLACES).
      .filter((param) => param !== ":externalId" && !(param in PLACES))
      .map((param) => {
        const kind =
          param === ":deliveryId"
            ? "delivery"
            : param === ":blockerId"
              ? "blocker"
              : param === ":attachmentId"
                ? (`${PATH_KINDS[segment]}Attachment` as Kind)
                : param === ":uploadId"
                  ? (`${PATH_KINDS[segment]}Upload` as Kind)
                  : PATH_KINDS[segment];
        if (!kind) throw new Error(`${op.method} ${op.path}: say in PATH_KINDS what ${param} names`);
        return [param, kind];
      })
  );
}

/** Path parameters that name no record: the value each call gives them. */
const PLACES: Record<string, string> = { ":partNumber": "1" };

const fill = (op: Operation, values: Record<string, string>) =>
  op.path.replace(/:\w+/g, (param) => values[param] ?? PLACES[param] ?? `isolation-${uuidv7()}`);

/** The query the operation needs (QUERIES), given its body and the caller's records; "" for most. */
const queryFor = async (op: Operation, body: unknown, records: Records) =>
  (await QUERIES[`${op.method} ${op.path}`]?.(body, records)) ?? "";

// Read when the file is collected, so each operation is a test of its own, named after it.
// B's key makes every probe and arranges its own records for each (files and uploads too): past the default 600
// requests a minute when the machine is quiet. Isolation is what is tested here, not the rate limit.
const [a, b] = [await createTenant({ rateLimit: 100_000 }), await createTenant({ rateLimit: 100_000 })];
const operations: Operation[] = (await api("/v1", { key: b.key })).body.operations;
const openapi: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } } = (
  await api("/v1/openapi.json")
).body;
let ofA: Records;

beforeAll(async () => {
  ofA = await arrange(a, true);
  // A has events of its own, through the API.
  expectSuccess(await api("/v1/projects", { key: a.key, body: projectBody() }), 201);
}, 60_000);

function resolve(schema: any): any {
  if (schema?.$ref) return resolve(openapi.components.schemas[schema.$ref.split("/").pop()]);
  return schema ?? {};
}

const operationDoc = (op: Operation) => openapi.paths[op.path.replace(/:(\w+)/g, "{$1}")]![op.method.toLowerCase()];
const takesBody = (op: Operation) => Boolean(operationDoc(op).requestBody);
/** Its body is JSON (an upload's is a file's bytes, which name no record). */
const takesJson = (op: Operation) => Boolean(operationDoc(op).requestBody?.content["application/json"]);

/** Fields of a body or query schema that name a record (format uuid). */
function referenceFields(properties: Record<string, any>): string[] {
  const isUuid = (schema: any): boolean => {
    const s = resolve(schema);
    return s.format === "uuid" || [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(isUuid);
  };
  return Object.entries(properties)
    .filter(([, schema]) => isUuid(schema))
    .map(([name]) => name);
}

async function bodyFor(op: Operation, tenant: Tenant, records: Records) {
  if (!takesBody(op)) return undefined;
  const make = BODIES[`${op.method} ${op.path}`];
  if (!make) throw new Error(`${op.method} ${op.path}: add a body it accepts to BODIES`);
  return make(tenant, records);
}

describe("organisation B's key with organisation A's ids in the path", () => {
  it("probes every operation GET /v1 lists that takes an id", () => {
    const probed = operations.filter((op) => op.path.includes(":") && !byExternalId(op));
    expect(probed.length).toBeGreaterThan(20);
    for (const op of probed) paramKinds(op); // throws for a path this file cannot fill
  });

  for (const op of operations.filter((o) => o.path.includes(":") && !byExternalId(o))) {
    it(`${op.method} ${op.path}: 404 for each foreign id, nothing changes in either organisation`, async () => {
      const ofB = await arrange(b, /\/attachment/.test(op.path));
      const body = await bodyFor(op, b, ofB);
      const query = await queryFor(op, body, ofB);
      const params = paramKinds(op);
      // Each id foreign in turn (the others B's own), then all of them foreign.
      const variants = [
        ...params.map(([param]) => Object.fromEntries(params.map(([p, kind]) => [p, p === param ? ofA[kind] : ofB[kind]]))),
        ...(params.length > 1 ? [Object.fromEntries(params.map(([p, kind]) => [p, ofA[kind]]))] : []),
      ];
      for (const values of variants) {
        const before = [await snapshot(a.org.id), await snapshot(b.org.id)];
        const response = await api(fill(op, values) + query, { key: b.key, method: op.method, body });
        expectError(response, 404, "not_found");
        expect(response.text, "the answer names nothing of A").not.toContain(a.org.id);
        expectNoTrace(before[0]!, await snapshot(a.org.id));
        expectNoTrace(before[1]!, await snapshot(b.org.id));
      }
      // B's own ids are not refused as not found: the 404 above was about the organisation alone.
      const own = await api(fill(op, Object.fromEntries(params.map(([p, kind]) => [p, ofB[kind]]))) + query, {
        key: b.key,
        method: op.method,
        body,
      });
      expect(own.status, `${op.method} ${op.path} on B's own records: ${own.text.slice(0, 200)}`).not.toBe(404);
    });
  }
});

/** The table each by-external-id path's records live in. */
const TABLES: Record<string, string> = {
  projects: "projects",
  milestones: "milestones",
  tasks: "tasks",
  labels: "labels",
  comments: "comments",
  "checklist-items": "checklist_items",
  risks: "risks",
  issues: "issues",
  "financial-entries": "financial_entries",
  personnel: "personnel",
};

describe("organisation B's PUT by an external id organisation A uses", () => {
  it("covers every PUT by external id", () => {
    expect(
      operations
        .filter(byExternalId)
        .map((op) => op.path.split("/")[2])
        .sort(),
    ).toEqual(Object.keys(TABLES).sort());
  });

  for (const op of operations.filter(byExternalId)) {
    it(`${op.method} ${op.path}: creates B's own record; A's with that external id is untouched and unnamed`, async () => {
      const segment = op.path.split("/")[2]!;
      const kind = PATH_KINDS[segment]!;
      const externalId = `shared-${uuidv7()}`;
      await query(`update ${TABLES[segment]} set external_id = $1 where id = $2`, [externalId, ofA[kind]]);
      const ofB = await arrange(b);
      const before = await snapshot(a.org.id);
      const response = await api(fill(op, { ":externalId": externalId }), {
        key: b.key,
        method: op.method,
        body: await bodyFor(op, b, ofB),
      });
      const created = expectSuccess(response, 201).data;
      expect(created.orgId).toBe(b.org.id);
      expect(created.externalId).toBe(externalId);
      expect(response.text, "the answer names nothing of A").not.toContain(a.org.id);
      expect(response.text).not.toContain(ofA[kind]);
      expectNoTrace(before, await snapshot(a.org.id));
    });
  }
});

describe("organisation B's reads without a path id", () => {
  it("show B's data only: no id of A in any answer", async () => {
    const ofB = await arrange(b);
    const reads = operations.filter((op) => op.method === "GET" && !op.path.includes(":") && op.path !== "/v1/openapi.json");
    expect(reads.length).toBeGreaterThan(8);
    for (const op of reads) {
      const response = await api(op.path, { key: b.key });
      // The audit log's export answers NDJSON lines, not an envelope: its text is checked all the same.
      if (!operationDoc(op).responses["200"].content["application/json"]) expect(response.status, op.path).toBe(200);
      else expectSuccess(response);
      for (const id of [a.org.id, ...Object.values(ofA)]) expect(response.text, `${op.path} shows A's ${id}`).not.toContain(id);
      if (Array.isArray(response.body?.data)) {
        for (const record of response.body.data) if ("orgId" in record) expect(record.orgId).toBe(b.org.id);
      }
    }
    expect(ofB.project).toBeTruthy();
  });

  it("filters naming A's records find nothing", async () => {
    let tried = 0;
    for (const op of operations.filter((o) => o.method === "GET" && !o.path.includes(":"))) {
      const parameters: any[] = operationDoc(op).parameters ?? [];
      const fields = referenceFields(Object.fromEntries(parameters.filter((p) => p.in === "query").map((p) => [p.name, p.schema])));
      for (const field of fields) {
        const kind = FIELD_KINDS[field];
        if (!kind) throw new Error(`${op.path}?${field}: say in FIELD_KINDS what it names`);
        const response = await api(`${op.path}?${field}=${ofA[kind]}`, { key: b.key });
        // The audit log's export answers NDJSON lines: none.
        if (!operationDoc(op).responses["200"].content["application/json"]) expect(response.text, `${op.path}?${field}=A's`).toBe("");
        // A collection's counts (GET <collection>/counts) count none.
        else if (op.path.endsWith("/counts")) expect(expectSuccess(response).data.total, `${op.path}?${field}=A's`).toBe(0);
        else expect(expectSuccess(response).data, `${op.path}?${field}=A's`).toEqual([]);
        tried++;
      }
    }
    expect(tried).toBeGreaterThanOrEqual(5);
  });
});

describe("organisation B's writes naming A's records in the body", () => {
  it("are refused with 400 invalid_reference naming the field; nothing changes", async () => {
    let tried = 0;
    for (const op of operations.filter((o) => ["POST", "PUT", "PATCH"].includes(o.method) && takesJson(o))) {
      const schema = resolve(operationDoc(op).requestBody.content["application/json"].schema);
      for (const field of referenceFields(schema.properties ?? {})) {
        const kind = FIELD_KINDS[field];
        if (!kind) throw new Error(`${op.method} ${op.path} body.${field}: say in FIELD_KINDS what it names`);
        const ofB = await arrange(b);
        const valid = (await bodyFor(op, b, ofB))!;
        const path = fill(op, Object.fromEntries(paramKinds(op).map(([p, k]) => [p, ofB[k]])));
        const before = [await snapshot(a.org.id), await snapshot(b.org.id)];
        const response = await api(path, { key: b.key, method: op.method, body: { ...valid, [field]: ofA[kind] } });
        expectError(response, 400, "invalid_reference", { field });
        expectNoTrace(before[0]!, await snapshot(a.org.id));
        expectNoTrace(before[1]!, await snapshot(b.org.id));
        tried++;
      }
    }
    expect(tried).toBeGreaterThanOrEqual(8);
  }, 60_000);
});
