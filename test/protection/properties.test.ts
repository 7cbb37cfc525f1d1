import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../functions/errors.ts";
import { generateApiKey } from "../../functions/lib/api-keys.ts";
import { uuidv7 } from "../../functions/lib/ids.ts";
import { api, expectSuccess, workerUrl } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { insertFinancialEntry, insertIssue, insertRisk } from "../helpers/project-records.ts";

// Property-based tests (issue 6): generated bodies, query strings, headers and path ids sent to
// every operation GET /v1 lists (the list and each operation's fields are read from the running
// API: GET /v1 and GET /v1/openapi.json, never written out here). Whatever is sent:
//
//   - the answer is never a 5xx;
//   - it is the JSON envelope, version "v1"; an error carries a code of the closed set
//     (functions/errors.ts) whose status is the one answered, and the request id of the header;
//   - a refused request leaves no row, no changeVersion bump and no event in the caller's
//     organisation; the other organisation, whose ids are sent too, never changes at all.
//
// Runs are bounded (NUM_RUNS per property; a run that takes 30 s counts as a hang) and seeded: a failure prints fast-check's
// seed and the request that broke a property; FC_SEED=<seed> npx vitest run
// test/protection/properties.test.ts generates the same inputs again. There is no shrinking: the
// database changes from run to run, so a replayed input would not be the same experiment.
// Webhook URLs generated here point at a closed loopback port: nothing leaves the machine.

const NUM_RUNS = 40;
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
const settings = (numRuns = NUM_RUNS) => ({ numRuns, seed: SEED, verbose: 1 as const, endOnFailure: true, timeout: 30_000 });

interface Operation {
  method: string;
  /** As GET /v1 lists it: /v1/tasks/:id */
  path: string;
  scope: string | null;
}

interface Request {
  operation: Operation;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Operations that hand work to the realtime room; they answer 503 while the room is down. */
const NEEDS_ROOM = new Set(["POST /v1/webhooks/:id/test", "POST /v1/webhooks/:id/deliveries/:deliveryId/redeliver"]);

let tenant: Tenant;
let other: Tenant;
let readOnlyKey: string;
let revokedKey: string;
let operations: Operation[];
let openapi: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
/** Record ids by kind, of the caller's organisation and of the other one. */
const own: Record<string, string[]> = {};
const foreign: Record<string, string[]> = {};

async function arrange(t: Tenant, into: Record<string, string[]>, copies: number) {
  const add = (kind: string, id: string) => (into[kind] ??= []).push(id);
  for (let i = 0; i < copies; i++) {
    const project = await t.insertProject();
    const person = await t.insertPerson();
    const milestone = await t.insertMilestone(project.id);
    add("project", project.id);
    add("person", person.id);
    add("milestone", milestone.id);
    add("task", (await t.insertTask({ projectId: project.id, assigneeId: person.id, milestoneId: milestone.id })).id);
    add("risk", await insertRisk(t, { project_id: project.id }));
    add("issue", await insertIssue(t, { project_id: project.id }));
    add("financialEntry", await insertFinancialEntry(t, { project_id: project.id }));
    const webhook = expectSuccess(await api("/v1/webhooks", { key: t.key, body: { url: `http://127.0.0.1:9/fuzz/${i}` } }), 201).data;
    add("webhook", webhook.id);
    const [delivery] = await query<{ id: string }>(
      `insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type, attempt, outcome)
       values ($1, $2, $3, $4, 'webhook.test', 1, 'failed') returning id`,
      [uuidv7(), t.org.id, webhook.id, uuidv7()],
    );
    add("delivery", delivery!.id);
  }
}

beforeAll(async () => {
  // A budget no run reaches: a 429 would be a correct answer, but one that tells nothing.
  [tenant, other] = [await createTenant({ rateLimit: 1_000_000 }), await createTenant({ rateLimit: 1_000_000 })];
  await arrange(tenant, own, 3);
  await arrange(other, foreign, 1);
  readOnlyKey = (await tenant.keyWith(["tasks.read", "projects.read"], { rateLimit: 1_000_000 })).key;
  revokedKey = (await tenant.revokedKey()).key;
  const self = await api("/v1", { key: tenant.key });
  expectSuccess(self);
  operations = self.body.operations;
  openapi = (await api("/v1/openapi.json")).body;
  expect(operations.length).toBeGreaterThan(40);
}, 60_000);

// ---- What an operation accepts, from the OpenAPI document -------------------------------------

const openapiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");
const operationDoc = (op: Operation) => openapi.paths[openapiPath(op.path)]?.[op.method.toLowerCase()];

function resolve(schema: any): any {
  if (schema?.$ref) return resolve(openapi.components.schemas[schema.$ref.split("/").pop()]);
  return schema ?? {};
}

/** The body fields an operation declares: name -> schema. */
function bodyFields(op: Operation): Record<string, any> {
  return resolve(operationDoc(op)?.requestBody?.content?.["application/json"]?.schema).properties ?? {};
}

/** The query parameters an operation declares: name -> schema. */
function queryFields(op: Operation): Record<string, any> {
  const parameters: any[] = operationDoc(op)?.parameters ?? [];
  return Object.fromEntries(parameters.filter((p) => p.in === "query").map((p) => [p.name, resolve(p.schema)]));
}

const allBodyKeys = () => [...new Set(operations.flatMap((op) => Object.keys(bodyFields(op))))];
const allQueryKeys = () => [...new Set(operations.flatMap((op) => Object.keys(queryFields(op))))];

// ---- Values -----------------------------------------------------------------------------------

const ownIds = () => fc.constantFrom(...Object.values(own).flat());
const foreignIds = () => fc.constantFrom(...Object.values(foreign).flat());

/** Numbers at the edges, as JSON text (some are not representable as a double at all). */
const EDGE_NUMBERS = [
  "0", "-0", "1", "-1", "0.1", "1.005", "0.001", "2147483647", "2147483648", "-2147483649", "9007199254740993",
  "123456789012345678901234567890", "1e308", "1.7976931348623157e308", "1e400", "-1e400", "5e-324", "1e-400", "1E2", "-1e-7",
];

/** A value a field might accept, from its schema (so some requests get past validation). */
function plausible(name: string, schema: any, depth = 0): fc.Arbitrary<unknown> {
  schema = resolve(schema);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && depth < 3) return fc.oneof(...variants.map((v: any) => plausible(name, v, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  if (name === "url") return fc.constantFrom("http://127.0.0.1:9/hook", "http://localhost:9/x", "https://127.0.0.1:9/y");
  if (name === "email") return fc.emailAddress();
  if (name === "currency") return fc.constantFrom("EUR", "USD", "eur", "EURO");
  if (name === "amount") return fc.constantFrom("12.50", "-3", "0", "1.005", "99999999999999.99");
  if (name === "events") return fc.array(fc.constantFrom("task.*", "project.created", "*", "nope.*"), { maxLength: 3 });
  if (name === "scopes") return fc.array(fc.constantFrom("tasks.read", "projects.read", "webhooks.manage", "nope"), { maxLength: 3 });
  switch (type) {
    case "string":
      if (schema.format === "uuid") return fc.oneof(ownIds(), foreignIds(), fc.uuid());
      if (schema.format === "date") return fc.constantFrom("2026-03-01", "2026-12-31", "2026-02-30", "0001-01-01", "9999-12-31");
      if (schema.format === "date-time") return fc.constantFrom("2026-01-01T00:00:00.000Z", "2026-01-01", "2026-13-01T00:00:00Z");
      return fc.string({ minLength: 1, maxLength: 40 });
    case "integer":
      return fc.integer({ min: -5, max: 100_000 });
    case "number":
      return fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.double({ min: -10, max: 1e9, noNaN: true }));
    case "boolean":
      return fc.boolean();
    case "array":
      return depth < 3 ? fc.array(plausible(name, schema.items, depth + 1), { maxLength: 3 }) : fc.constant([]);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values no field wants: wrong types, huge or odd strings, NUL, control characters, nesting. */
const strange = (): fc.Arbitrary<unknown> =>
  fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom("", " ", "\t\n", "\u202e\u0000", "🙂".repeat(60), "\ud800", "null", "true", "2026-02-30", "0000-01-01", "NaN"),
  fc.integer({ min: 1, max: 3 }).map((n) => "x".repeat([201, 10_001, 70_000][n - 1]!)),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.uuid(),
  foreignIds(),
);

/** A JSON object body for the operation: some declared fields, some unknown ones, right or wrong. */
function objectBody(op: Operation): fc.Arbitrary<string> {
  const fields = bodyFields(op);
  const declared = Object.keys(fields);
  const names = declared.length > 0 ? fc.constantFrom(...declared) : fc.constantFrom(...allBodyKeys());
  const entry = fc.oneof(
    { weight: 5, arbitrary: names.chain((name) => fc.tuple(fc.constant(name), fc.oneof({ weight: 3, arbitrary: plausible(name, fields[name] ?? {}) }, { weight: 2, arbitrary: strange() }))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...allBodyKeys()), strange()) },
    { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 1 })) },
  );
  const asObject = fc.array(entry, { maxLength: 8 }).map((entries) => JSON.stringify(Object.fromEntries(entries)));
  // A declared field with an edge number, written as JSON text.
  const edge = fc.tuple(names, fc.constantFrom(...EDGE_NUMBERS)).map(([name, number]) => `{${JSON.stringify(name)}: ${number}}`);
  return fc.oneof({ weight: 6, arbitrary: asObject }, { weight: 1, arbitrary: edge });
}

/** Any body text: an object, another JSON value, broken JSON, nothing, or too much. */
function bodyText(op: Operation): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: objectBody(op) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? "null") },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom("", "{", '{"a":1,}', "{}garbage", "\ufeff{}", '{"a":"\\ud800"}', "[]", `{"name":"${"x".repeat(70_000)}"}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** A query string: declared parameters with good or bad values, unknown ones, broken encoding. */
function queryString(op: Operation): fc.Arbitrary<string> {
  const fields = queryFields(op);
  const declared = Object.keys(fields);
  const value = (name: string) =>
    fc.oneof(
      plausible(name, fields[name] ?? {}).map((v) => (typeof v === "string" ? v : JSON.stringify(v) ?? "")),
      fc.string({ maxLength: 20 }),
      fc.constantFrom("", "0", "-1", "201", "1e3", "999999999999999999999", "todo,,done", "true", "TRUE", "2026-02-30"),
    );
  const names = fc.oneof(
    ...(declared.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...declared) }] : []),
    { weight: 1, arbitrary: fc.constantFrom(...allQueryKeys()) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 10 }) },
  );
  const encoded = fc
    .array(names.chain((name) => value(name).map((v) => `${encodeURIComponent(name)}=${encodeURIComponent(v)}`)), { maxLength: 4 })
    .map((pairs) => pairs.join("&"));
  const raw = fc.constantFrom("%", "%zz", "limit=%00", "a=%E0%A4%A", "&&&", "=", "limit=1&limit=2", "cursor=%FF%FE", "status[]=x", "limit");
  return fc.oneof({ weight: 5, arbitrary: encoded }, { weight: 1, arbitrary: raw }).map((q) => (q ? `?${q}` : ""));
}

/** Header values fetch can send: visible ASCII, spaces and tabs, and latin-1 bytes. */
const headerText = (maxLength = 40) =>
  fc.string({
    unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }), fc.constant(0x09)).map((c) => String.fromCharCode(c)),
    maxLength,
  });

/** Authorization as sent: mostly the caller's key, else any of the ways a key can be wrong. */
const authorization = () =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${tenant.key}`) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constant(undefined),
        fc.constant(`Bearer ${readOnlyKey}`),
        fc.constant(`Bearer ${revokedKey}`),
        fc.constant(`Bearer ${generateApiKey()}`),
        fc.constant(`bearer  ${tenant.key}  `),
        fc.constant(`Bearer ${tenant.key}x`),
        fc.constant(`Bearer ${tenant.key.slice(0, -1)}`),
        fc.constant(tenant.key),
        fc.constant(`Basic ${Buffer.from(`${tenant.key}:`).toString("base64")}`),
        headerText(),
        headerText(60).map((s) => `Bearer ${s}`),
        headerText(40).map((s) => `Bearer ops_${s}`),
      ),
    },
  );

const CONTENT_TYPES = [
  "application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/merge-patch+json", "application/vnd.api+json",
  "application/json;charset=latin1", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "",
  "application/jsonx", "json", "*/*",
];

const optional = <T>(arbitrary: fc.Arbitrary<T>, freq = 2) => fc.option(arbitrary, { nil: undefined, freq });

const ifMatch = () =>
  fc.oneof(fc.constantFrom("*", '"1"', 'W/"1"', "1", '"999999999"', '"1", "2"', '"abc"', '""', '"-1"', '"1e3"', '"99999999999"'), headerText(20));

function headers(): fc.Arbitrary<Record<string, string | undefined>> {
  return fc.record({
    authorization: authorization(),
    "content-type": optional(fc.oneof({ weight: 4, arbitrary: fc.constant("application/json") }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: headerText(30) }), 6),
    "if-match": optional(ifMatch()),
    "idempotency-key": optional(fc.oneof(fc.uuid(), headerText(30), fc.constant("k".repeat(256)))),
    "x-request-id": optional(fc.oneof(fc.uuid(), headerText(30), fc.constant("r".repeat(300)))),
    accept: optional(fc.constantFrom("application/json", "text/html", "*/*", "application/xml")),
  });
}

/** A path id: the caller's, the other organisation's, unknown, or not an id at all. */
const pathId = () =>
  fc.oneof(
    { weight: 4, arbitrary: ownIds() },
    { weight: 3, arbitrary: foreignIds() },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom("00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff") },
    { weight: 1, arbitrary: ownIds().map((id) => id.toUpperCase()) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 10 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom("%zz", "%", "%00", "..", ".", "a%2Fb", "%E0%A4%A", `${randomUUID()}%00`, "x".repeat(500)) },
  );

/** The operation's path with each :param replaced; `ids` decides what goes there. */
function pathOf(op: Operation, ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const params = op.path.match(/:\w+/g) ?? [];
  return fc.tuple(...params.map(() => ids)).map((values) => {
    let path = op.path;
    params.forEach((param, i) => (path = path.replace(param, values[i]!)));
    return path;
  });
}

/** A well-formed request from the caller, with the parts under test generated. */
function request(
  op: Operation,
  parts: { path?: fc.Arbitrary<string>; query?: fc.Arbitrary<string>; headers?: fc.Arbitrary<Record<string, string | undefined>>; body?: fc.Arbitrary<string | undefined> },
): fc.Arbitrary<Request> {
  const wantsBody = op.method === "POST" || op.method === "PATCH";
  return fc
    .record({
      path: parts.path ?? pathOf(op, ownIds()),
      query: parts.query ?? fc.constant(""),
      headers: parts.headers ?? fc.constant({ authorization: `Bearer ${tenant.key}`, "content-type": "application/json" }),
      body: parts.body ?? (wantsBody ? objectBody(op) : fc.constant(undefined)),
    })
    .map(({ path, query, headers, body }) => ({
      operation: op,
      method: op.method,
      path: `${path}${query}`,
      headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      // fetch refuses a body on GET; a DELETE may carry one.
      ...(body !== undefined && op.method !== "GET" ? { body } : {}),
    }));
}

// ---- The properties ---------------------------------------------------------------------------

async function send(req: Request) {
  const response = await fetch(new URL(req.path, workerUrl()), {
    method: req.method,
    headers: req.headers,
    // Bytes, so fetch adds no Content-Type of its own.
    ...(req.body === undefined ? {} : { body: new TextEncoder().encode(req.body) }),
    redirect: "manual",
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const describeRequest = (req: Request) =>
  `${req.method} ${req.path.slice(0, 200)} headers=${JSON.stringify(req.headers).slice(0, 300)} body=${(req.body ?? "(none)").slice(0, 200)}`;

/** Sends the request and checks every property; throws (and fast-check shrinks) on the first broken one. */
async function holds(req: Request): Promise<void> {
  const before = await Promise.all([snapshot(tenant.org.id), snapshot(other.org.id)]);
  const response = await send(req);
  const where = `${describeRequest(req)}\n  -> ${response.status} ${response.text.slice(0, 400)}`;
  const operation = `${req.operation.method} ${req.operation.path}`;

  const roomRefused = NEEDS_ROOM.has(operation) && response.status === 503;
  if (!roomRefused) expect(response.status, `never a 5xx: ${where}`).toBeLessThan(500);
  expect(response.headers.get("content-type") ?? "", `JSON: ${where}`).toMatch(/^application\/json/);
  let body: any;
  expect(() => (body = JSON.parse(response.text)), `JSON: ${where}`).not.toThrow();
  const isDocument = operation === "GET /v1/openapi.json" && response.status === 200;
  if (!isDocument) {
    expect(body?.version, `envelope: ${where}`).toBe("v1");
    expect(body?.success, `envelope: ${where}`).toBe(response.status < 400);
  }
  if (response.status >= 400) {
    const code = body?.error?.code as keyof typeof ERROR_STATUS;
    expect(Object.keys(ERROR_STATUS), `a code of the closed set: ${where}`).toContain(code);
    expect(ERROR_STATUS[code], `the code's status: ${where}`).toBe(response.status);
    expect(body.error.requestId, `requestId is the header's: ${where}`).toBe(response.headers.get("x-request-id"));
    expect(body, `an error carries no data: ${where}`).not.toHaveProperty("data");
  }

  const after = await Promise.all([snapshot(tenant.org.id), snapshot(other.org.id)]);
  if (response.status >= 400) expectNoTrace(before[0], after[0]);
  // The other organisation is never written by the caller, whatever the answer.
  expectNoTrace(before[1], after[1]);
}

const anyOperation = () => fc.constantFrom(...operations);
const withParams = () => fc.constantFrom(...operations.filter((op) => op.path.includes(":")));
const withBody = () => fc.constantFrom(...operations.filter((op) => op.method === "POST" || op.method === "PATCH"));
const reads = () => fc.constantFrom(...operations.filter((op) => op.method === "GET"));

describe(`generated requests to every operation (seed ${SEED})`, () => {
  it("the operations come from GET /v1, and each is in the OpenAPI document", () => {
    for (const op of operations) expect(operationDoc(op), `${op.method} ${op.path}`).toBeDefined();
  });

  it("bodies: JSON values, objects with declared and unknown fields of right and wrong types, huge, unicode, NUL, edge numbers", async () => {
    await fc.assert(
      fc.asyncProperty(withBody().chain((op) => request(op, { body: bodyText(op) })), holds),
      settings(50),
    );
  }, 180_000);

  it("query strings: declared parameters with good and bad values, unknown ones, broken encoding", async () => {
    await fc.assert(
      fc.asyncProperty(reads().chain((op) => request(op, { query: queryString(op) })), holds),
      settings(),
    );
  }, 180_000);

  it("headers: content types, garbage Authorization, If-Match, Idempotency-Key and X-Request-Id", async () => {
    await fc.assert(
      fc.asyncProperty(anyOperation().chain((op) => request(op, { headers: headers() })), holds),
      settings(),
    );
  }, 180_000);

  it("path ids: random strings, broken encodings, unknown uuids, the other organisation's ids", async () => {
    await fc.assert(
      fc.asyncProperty(withParams().chain((op) => request(op, { path: pathOf(op, pathId()) })), holds),
      settings(),
    );
  }, 180_000);

  it("everything at once", async () => {
    await fc.assert(
      fc.asyncProperty(
        anyOperation().chain((op) =>
          request(op, { path: pathOf(op, pathId()), query: queryString(op), headers: headers(), body: bodyText(op) }),
        ),
        holds,
      ),
      settings(),
    );
  }, 180_000);
});
