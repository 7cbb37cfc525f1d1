/* eslint-disable max-lines -- every property draws on the same generators, read from the same running API, so they share this file rather than a helper module only they would use. */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { isWellFormedApiKey } from "../../domain/crypto/api-keys.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "../../domain/limits.ts";
import { ERROR_STATUS } from "../../functions/http/errors.ts";
import { api, expectSuccess, workerUrl } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { insertFinancialEntry, insertIssue, insertRisk } from "../helpers/project-records.ts";
import { insertChecklistItems, insertComment, insertLabel } from "../helpers/work.ts";

// Property-based tests: generated bodies, query strings, headers and path ids sent to
// every operation GET /v1 lists (the list and each operation's fields are read from the running
// API: GET /v1 and GET /v1/openapi.json, never written out here). Whatever is sent:
//
//   - the answer is never a 5xx;
//   - it is the JSON envelope, version "v1"; an error carries a code of the closed set
//     (functions/http/errors.ts) whose status is the one answered, and the request id of the header;
//   - a refused request leaves no row, no changeVersion bump and no event in the caller's
//     organisation; the other organisation, whose ids are sent too, never changes at all.
//
// Runs are bounded (NUM_RUNS per property; a run that takes 30 s counts as a hang) and seeded:
// every property prints one line with its seed and run count, and a failure prints fast-check's
// seed and the request that broke it; `FC_SEED=<seed> npx vitest run
// test/protection/properties.test.ts` generates the same inputs again. Generation is a function
// of the seed alone (a test below checks it): nothing random is drawn outside fast-check. The
// records and keys a request names are this run's fixtures, made in the same order, so a replay
// sends the same requests to the same slots. There is no shrinking: the database changes from
// run to run, so a shrunk input would not be the same experiment.
// Webhook URLs generated here point at a closed loopback port: nothing leaves the machine.

const NUM_RUNS = 40;
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
const settings = (numRuns = NUM_RUNS) => ({ numRuns, seed: SEED, verbose: 1 as const, endOnFailure: true, timeout: 30_000 });
const FILE = "test/protection/properties.test.ts";

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
  /** A body past the JSON limits: the field the API must name in its 400 invalid_field. */
  refusedAt?: string;
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
    const task = (await t.insertTask({ projectId: project.id, assigneeId: person.id, milestoneId: milestone.id })).id;
    add("task", task);
    add("label", await insertLabel(t));
    add("comment", await insertComment(t, task));
    add("checklistItem", (await insertChecklistItems(t, task))[0]!);
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
  "0",
  "-0",
  "1",
  "-1",
  "0.1",
  "1.005",
  "0.001",
  "2147483647",
  "2147483648",
  "-2147483649",
  "9007199254740993",
  "123456789012345678901234567890",
  "1e308",
  "1.7976931348623157e308",
  "1e400",
  "-1e400",
  "5e-324",
  "1e-400",
  "1E2",
  "-1e-7",
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
    {
      weight: 5,
      arbitrary: names.chain((name) =>
        fc.tuple(
          fc.constant(name),
          fc.oneof({ weight: 3, arbitrary: plausible(name, fields[name] ?? {}) }, { weight: 2, arbitrary: strange() }),
        ),
      ),
    },
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
    {
      weight: 1,
      arbitrary: fc.constantFrom("", "{", '{"a":1,}', "{}garbage", "\ufeff{}", '{"a":"\\ud800"}', "[]", `{"name":"${"x".repeat(70_000)}"}`),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

// Adversarial query values, sent to every declared query parameter of every operation. A cursor
// is base64url of "<createdAt>|<id>" (domain/paging.ts): these decode, but to something no
// page ever ended on.
const base64url = (data: string | Uint8Array) => Buffer.from(data).toString("base64url");
const AN_ID = "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10";
const A_CURSOR = base64url(`2026-01-01T00:00:00.000Z|${AN_ID}`);
const ADVERSARIAL_CURSORS = [
  base64url(`2026-02-30T00:00:00.000Z|${AN_ID}`), // a day that does not exist
  base64url(`0000-01-01T00:00:00.000Z|${AN_ID}`), // year 0, which Postgres does not have
  base64url("9999-99-99T99:99:99.999Z|x"),
  base64url(Uint8Array.from([0xff, 0xfe, 0x00, 0x80, 0x7f, 0xc3, 0x28, 0xa0, 0xe2, 0x82])), // bytes, not UTF-8
  base64url("2026-01-01T00:00:00.000Z|not-a-uuid"), // a real instant, not an id
  base64url(`2026-01-01T00:00:00.000Z|${AN_ID}|extra`),
  base64url(`+275760-09-13T00:00:00.000Z|${AN_ID}`), // the last instant JavaScript has, past Postgres's
  `${A_CURSOR}==`, // with the padding base64url leaves out
  Buffer.from(`2026-01-01T00:00:00.000Z|${AN_ID}`).toString("base64"), // standard base64, "=" padded
  `+/${A_CURSOR}`, // the standard alphabet's "+" and "/"
  Buffer.from(Uint8Array.from([0xfb, 0xef, 0xbe, 0xff, 0xff, 0xff])).toString("base64"), // "++++////"
];
const ADVERSARIAL_DATES = [
  "2026-02-30",
  "0000-01-01",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59-14:00",
  "275760-09-13T00:00:00Z",
  "+275760-09-13T00:00:00.000Z",
  "-271821-04-20T00:00:00Z",
  "2026-01-01T24:00:00Z",
];
const ADVERSARIAL_NUMBERS = ["1e308", "9007199254740993", "-0", "99999999999999999999999", "Infinity", "NaN"];
/** Every fixed adversarial value: each list endpoint gets each of them in each of its query parameters. */
const ADVERSARIAL_VALUES = [...ADVERSARIAL_CURSORS, ...ADVERSARIAL_DATES, ...ADVERSARIAL_NUMBERS];

/** The fixed values and generated ones of the same kinds: cursors of random bytes and ids, instants JavaScript has and Postgres may not, huge integers. */
const adversarialValue = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ADVERSARIAL_VALUES) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 48 }).map(base64url) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 48 }).map((bytes) => Buffer.from(bytes).toString("base64")) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }),
          fc.oneof(fc.uuid(), fc.string({ maxLength: 40 })),
        )
        .map(([date, id]) => base64url(`${date.toISOString()}|${id}`)),
    },
    {
      weight: 1,
      arbitrary: fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((date) => date.toISOString()),
    },
    { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
  );

/** A query string: declared parameters with good, bad or adversarial values, unknown ones, broken encoding. */
function queryString(op: Operation): fc.Arbitrary<string> {
  const fields = queryFields(op);
  const declared = Object.keys(fields);
  const value = (name: string) =>
    fc.oneof(
      plausible(name, fields[name] ?? {}).map((v) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""))),
      fc.string({ maxLength: 20 }),
      fc.constantFrom("", "0", "-1", "201", "1e3", "999999999999999999999", "todo,,done", "true", "TRUE", "2026-02-30"),
      adversarialValue(),
    );
  const names = fc.oneof(
    ...(declared.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...declared) }] : []),
    { weight: 1, arbitrary: fc.constantFrom(...allQueryKeys()) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 10 }) },
  );
  const encoded = fc
    .array(
      names.chain((name) => value(name).map((v) => `${encodeURIComponent(name)}=${encodeURIComponent(v)}`)),
      { maxLength: 4 },
    )
    .map((pairs) => pairs.join("&"));
  const raw = fc.constantFrom(
    "%",
    "%zz",
    "limit=%00",
    "a=%E0%A4%A",
    "&&&",
    "=",
    "limit=1&limit=2",
    "cursor=%FF%FE",
    "status[]=x",
    "limit",
    `cursor=+/${A_CURSOR}==`,
    `cursor=${A_CURSOR}&cursor=${A_CURSOR}`,
  );
  return fc.oneof({ weight: 5, arbitrary: encoded }, { weight: 1, arbitrary: raw }).map((q) => (q ? `?${q}` : ""));
}

// A well-formed API key that no organisation has, from fast-check's randomness (the API's own
// generateApiKey draws from crypto, which a seed cannot replay): 32 base62 characters and their
// CRC32 in 6 base62 characters, the format of domain/crypto/api-keys.ts (checked against its
// isWellFormedApiKey below).
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function keyWithChecksum(body: string): string {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(body, "utf8")) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  let value = (crc ^ 0xffffffff) >>> 0;
  let checksum = "";
  for (let i = 0; i < 6; i++) {
    checksum = BASE62[value % 62] + checksum;
    value = Math.floor(value / 62);
  }
  return `ops_${body}${checksum}`;
}
const unknownKey = () => fc.string({ unit: fc.constantFrom(...BASE62), minLength: 32, maxLength: 32 }).map(keyWithChecksum);

/** Header values fetch can send: visible ASCII, spaces and tabs, and latin-1 bytes. */
const headerText = (maxLength = 40) =>
  fc.string({
    unit: fc
      .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }), fc.constant(0x09))
      .map((c) => String.fromCharCode(c)),
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
        unknownKey().map((key) => `Bearer ${key}`),
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
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/merge-patch+json",
  "application/vnd.api+json",
  "application/json;charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
  "application/jsonx",
  "json",
  "*/*",
];

const optional = <T>(arbitrary: fc.Arbitrary<T>, freq = 2) => fc.option(arbitrary, { nil: undefined, freq });

const ifMatch = () =>
  fc.oneof(
    fc.constantFrom("*", '"1"', 'W/"1"', "1", '"999999999"', '"1", "2"', '"abc"', '""', '"-1"', '"1e3"', '"99999999999"'),
    headerText(20),
  );

function headers(): fc.Arbitrary<Record<string, string | undefined>> {
  return fc.record({
    authorization: authorization(),
    "content-type": optional(
      fc.oneof(
        { weight: 4, arbitrary: fc.constant("application/json") },
        { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        { weight: 1, arbitrary: headerText(30) },
      ),
      6,
    ),
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
    { weight: 1, arbitrary: fc.constantFrom("%zz", "%", "%00", "..", ".", "a%2Fb", "%E0%A4%A", "x".repeat(500)) },
    { weight: 1, arbitrary: fc.uuid().map((uuid) => `${uuid}%00`) },
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
  parts: {
    path?: fc.Arbitrary<string>;
    query?: fc.Arbitrary<string>;
    headers?: fc.Arbitrary<Record<string, string | undefined>>;
    body?: fc.Arbitrary<string | undefined>;
  },
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

// ---- Deep and wide bodies ----------------------------------------------------------------------

/** An array, or an object of one field: its text around the one value it holds, and that value's name. */
const CONTAINERS = [
  { open: "[", close: "]", key: "0" },
  { open: '{"k":', close: "}", key: "k" },
];

/** Values nested `depth` deep (a container of each kind in `kinds`, in turn) as JSON text, built as text: JSON.stringify would overflow at such depths. */
interface Nested {
  depth: number;
  kinds: number[];
  leaf: string;
}

const nestedText = ({ depth, kinds, leaf }: Nested) => {
  const chain = Array.from({ length: depth }, (_, i) => CONTAINERS[kinds[i % kinds.length]!]!);
  return `${chain.map((c) => c.open).join("")}${leaf}${chain
    .map((c) => c.close)
    .reverse()
    .join("")}`;
};

/**
 * Where the API refuses `nested` placed at `place` in an object `at` deep in the body, or null:
 * the first container past MAX_JSON_DEPTH, else a leaf that is a lone surrogate.
 */
function refusalOf(nested: Nested, place: string[], at: number): string | null {
  const keys = Array.from({ length: nested.depth }, (_, i) => CONTAINERS[nested.kinds[i % nested.kinds.length]!]!.key);
  const refusedContainer = MAX_JSON_DEPTH + 1 - at;
  if (nested.depth >= refusedContainer) return [...place, ...keys.slice(0, refusedContainer - 1)].join(".");
  return nested.leaf === '"\\ud800"' ? [...place, ...keys].join(".") : null;
}

const nested = () =>
  fc.record({
    depth: fc.oneof(fc.integer({ min: 1, max: MAX_JSON_DEPTH + 2 }), fc.integer({ min: 100, max: 8_000 })),
    kinds: fc.array(fc.integer({ min: 0, max: CONTAINERS.length - 1 }), { minLength: 1, maxLength: 3 }),
    leaf: fc.constantFrom("0", '"x"', "null", '"$a.id"', '"\\ud800"'),
  });

/** Values side by side, as many as `width`, in an array or an object. */
const wideText = (width: number, asObject: boolean) =>
  asObject ? `{${Array.from({ length: width }, (_, i) => `"f${i}":0`).join(",")}}` : `[${Array<string>(width).fill("0").join(",")}]`;

const wide = () => fc.record({ width: fc.integer({ min: 1, max: MAX_JSON_VALUES + 2_000 }), asObject: fc.boolean() });

/** A name the operation's body declares (else any): deep and wide values go where its schema looks. */
const fieldName = (op: Operation) => fc.constantFrom(...(Object.keys(bodyFields(op)).length > 0 ? Object.keys(bodyFields(op)) : ["extra"]));

/** A body holding one deep or wide value: `values` counts what the body holds besides it. */
function shapedBody(
  field: string,
  shape: { nested: Nested } | { width: number; asObject: boolean },
  prefix: { open: string; close: string; place: string[]; at: number; values: number },
) {
  const value = "nested" in shape ? nestedText(shape.nested) : wideText(shape.width, shape.asObject);
  const refusedAt =
    "nested" in shape
      ? refusalOf(shape.nested, [...prefix.place, field], prefix.at)
      : prefix.values + 1 + shape.width > MAX_JSON_VALUES
        ? "body"
        : null;
  return { body: `${prefix.open}{${JSON.stringify(field)}:${value}}${prefix.close}`, refusedAt };
}

/** At the top of the body, or in the body of a batch's operation (at depth 4: the batch, operations, the operation, its body). */
const TOP = { open: "", close: "", place: [], at: 1, values: 1 };
const IN_BATCH = {
  open: '{"operations":[{"method":"POST","path":"/v1/tasks","body":',
  close: "}]}",
  place: ["operations", "0", "body"],
  at: 4,
  values: 6,
};

/** Every operation that takes a body, a deep or wide value in a field of its own or in a batched create. */
function shapedRequest(op: Operation): fc.Arbitrary<Request> {
  const batched = op.path === "/v1/batch";
  const where = batched ? IN_BATCH : TOP;
  const names = batched
    ? fc.constantFrom(...Object.keys(bodyFields(operations.find((o) => o.method === "POST" && o.path === "/v1/tasks")!)))
    : fieldName(op);
  const shape = fc.oneof(
    nested().map((n) => ({ nested: n })),
    wide(),
  );
  return fc.tuple(request(op, {}), names, shape).map(([req, field, chosen]) => {
    const { body, refusedAt } = shapedBody(field, chosen, where);
    return { ...req, body, ...(refusedAt === null ? {} : { refusedAt }) };
  });
}

/** One request per operation and kind first: arrays 5,000 deep, and one value more than the limit. */
const shapedExamples = (): Request[] =>
  withJsonBodyOps().flatMap((op) => {
    const batched = op.path === "/v1/batch";
    const where = batched ? IN_BATCH : TOP;
    const field = batched ? "title" : (Object.keys(bodyFields(op))[0] ?? "extra");
    const path = pathOf(op, fc.constant(own.task![0]!));
    return [{ nested: { depth: 5_000, kinds: [0], leaf: "0" } }, { width: MAX_JSON_VALUES - where.values, asObject: false }].map(
      (shape) => {
        const { body, refusedAt } = shapedBody(field, shape, where);
        const [sample] = fc.sample(path, { seed: SEED, numRuns: 1 });
        return {
          operation: op,
          method: op.method,
          path: sample!,
          headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
          body,
          refusedAt: refusedAt!,
        };
      },
    );
  });

/** A body past the limits is 400 invalid_field naming where (or 413 when its bytes are over the limit first). */
function refusedWhereItShouldBe(req: Request, response: { status: number; text: string }): void {
  if (req.refusedAt === undefined) return;
  const where = `${describeRequest(req)}\n  -> ${response.status} ${response.text.slice(0, 400)}`;
  const error = (JSON.parse(response.text) as { error?: { code?: string; field?: string } }).error;
  if (response.status === 413) return expect(error?.code, where).toBe("payload_too_large");
  expect(response.status, where).toBe(400);
  expect(error, where).toMatchObject({ code: "invalid_field", field: req.refusedAt });
}

// ---- The properties ---------------------------------------------------------------------------

/**
 * Each request claims a client address of its own (an IPv6 /64 per request, by its sequence
 * number), so the refused keys the properties generate never add up to the per-address limit and
 * every unknown or revoked key is really looked up. Numbered, not random: FC_SEED replays the run.
 */
let requestNumber = 0;
const clientAddressOf = () => `2001:db8:fc:${(requestNumber++ % 0xffff).toString(16)}::1`;

async function send(req: Request) {
  const response = await fetch(new URL(req.path, workerUrl()), {
    method: req.method,
    headers: { "cf-connecting-ip": clientAddressOf(), ...req.headers },
    // Bytes, so fetch adds no Content-Type of its own.
    ...(req.body === undefined ? {} : { body: new TextEncoder().encode(req.body) }),
    redirect: "manual",
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const describeRequest = (req: Request) =>
  `${req.method} ${req.path.slice(0, 200)} headers=${JSON.stringify(req.headers).slice(0, 300)} body=${(req.body ?? "(none)").slice(0, 200)}`;

type Answer = Awaited<ReturnType<typeof send>>;

/**
 * Checks what the answer to one request must be (never a 5xx, the envelope, a closed error code);
 * `also` when given. A success of the audit log's export is NDJSON lines, not the envelope.
 */
function answerHolds(req: Request, response: Answer, also?: Property["also"]): void {
  const where = `${describeRequest(req)}\n  -> ${response.status} ${response.text.slice(0, 400)}`;
  const operation = `${req.operation.method} ${req.operation.path}`;

  const roomRefused = NEEDS_ROOM.has(operation) && response.status === 503;
  if (!roomRefused) expect(response.status, `never a 5xx: ${where}`).toBeLessThan(500);
  // The audit log's export answers NDJSON lines when it succeeds (each a JSON value); its refusals are JSON envelopes.
  if (response.status < 400 && operationDoc(req.operation)?.responses?.["200"]?.content?.["application/x-ndjson"]) {
    expect(response.headers.get("content-type"), `NDJSON: ${where}`).toBe("application/x-ndjson");
    for (const line of response.text.split("\n").filter(Boolean)) expect(() => JSON.parse(line), `NDJSON: ${where}`).not.toThrow();
    also?.(req, response);
    return;
  }
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

  also?.(req, response);
}

const bothOrganisations = () => Promise.all([snapshot(tenant.org.id), snapshot(other.org.id)]);

/** Sends the request and checks every property (and `also`, when given); throws on the first broken one. */
async function holds(req: Request, also?: Property["also"]): Promise<void> {
  const before = await bothOrganisations();
  const response = await send(req);
  answerHolds(req, response, also);
  const after = await bothOrganisations();
  if (response.status >= 400) expectNoTrace(before[0], after[0]);
  // The other organisation is never written by the caller, whatever the answer.
  expectNoTrace(before[1], after[1]);
}

/**
 * How many fixed examples go out at once. The list property has some 3,000 (every fixed value in
 * every parameter of every list endpoint), and one at a time, each between two snapshots of both
 * organisations, they took most of the file's three minutes on PGlite.
 */
const EXAMPLES_AT_ONCE = 8;

/**
 * Requests that must write nothing whatever they answer: a read (GET), or a body the API must
 * refuse (past the JSON limits). These are checked together.
 */
const writesNothing = (req: Request) => req.method === "GET" || req.refusedAt !== undefined;

/**
 * Fixed examples that write nothing, sent EXAMPLES_AT_ONCE at a time between one pair of
 * snapshots: each answer is checked as `holds` checks it, and neither organisation may change
 * across the group. That is at least as strict as one at a time: the caller's organisation is
 * held unchanged whether each answered a refusal or a success, and writes of two requests could
 * only hide each other by undoing one another exactly. Any other example goes alone, through
 * `holds`. A failure names the request whose answer broke a property, or the group's requests
 * when a trace was left.
 */
async function examplesHold(examples: Request[], also?: Property["also"]): Promise<void> {
  const together = examples.filter(writesNothing);
  for (const req of examples.filter((req) => !writesNothing(req))) await holds(req, also);
  for (let i = 0; i < together.length; i += EXAMPLES_AT_ONCE) {
    const group = together.slice(i, i + EXAMPLES_AT_ONCE);
    const before = await bothOrganisations();
    const responses = await Promise.all(group.map(send));
    group.forEach((req, j) => answerHolds(req, responses[j]!, also));
    const after = await bothOrganisations();
    const sentTogether = group.map(describeRequest).join("\n");
    expect(after[0], `a trace left by one of these, sent together:\n${sentTogether}`).toEqual(before[0]);
    expect(after[1], `the other organisation written by one of these, sent together:\n${sentTogether}`).toEqual(before[1]);
  }
}

const anyOperation = () => fc.constantFrom(...operations);
const withParams = () => fc.constantFrom(...operations.filter((op) => op.path.includes(":")));
const withBody = () => fc.constantFrom(...operations.filter((op) => op.method === "POST" || op.method === "PATCH"));
/**
 * Every operation that reads a JSON body (its OpenAPI entry declares one); the others ignore what is
 * sent, and an upload's body is a file's bytes, held to its stated size and SHA-256, never parsed.
 */
const withJsonBodyOps = () => operations.filter((op) => operationDoc(op)?.requestBody?.content?.["application/json"] !== undefined);
const reads = () => fc.constantFrom(...operations.filter((op) => op.method === "GET"));
/** Every GET operation whose query declares a cursor. */
const listOperations = () => operations.filter((op) => op.method === "GET" && "cursor" in queryFields(op));

/** The record kind (a key of `own`) a path parameter names: the collection before it. */
const KIND_OF_COLLECTION: Record<string, string> = {
  projects: "project",
  personnel: "person",
  milestones: "milestone",
  tasks: "task",
  labels: "label",
  comments: "comment",
  "checklist-items": "checklistItem",
  // DELETE /v1/tasks/:id/dependencies/:blockerId: a task names its blocker.
  dependencies: "task",
  risks: "risk",
  issues: "issue",
  "financial-entries": "financialEntry",
  webhooks: "webhook",
  deliveries: "delivery",
};

/** The operation's path with each :param the caller's first record of the kind it names: a path the route finds. */
function foundPath(op: Operation): string {
  const segments = op.path.split("/");
  return segments
    .map((segment, i) => {
      if (!segment.startsWith(":")) return segment;
      const kind = KIND_OF_COLLECTION[segments[i - 1] ?? ""];
      const id = kind ? own[kind]?.[0] : undefined;
      if (!id) throw new Error(`no fixture for ${segment} in ${op.path}`);
      return id;
    })
    .join("/");
}

/** A request to a list operation, at a path it finds, with one query parameter set to `value`. */
function listRequest(op: Operation, name: string, value: string): Request {
  return {
    operation: op,
    method: op.method,
    path: `${foundPath(op)}?${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
    headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
  };
}

/** Every list operation, each of its query parameters, each fixed adversarial value: fast-check runs these first. */
const listExamples = (): Request[] =>
  listOperations().flatMap((op) =>
    Object.keys(queryFields(op)).flatMap((name) => ADVERSARIAL_VALUES.map((value) => listRequest(op, name, value))),
  );

/** Then generated ones: a list operation, one of its query parameters, an adversarial value, fixed or generated. */
const listRequests = () =>
  fc
    .constantFrom(...listOperations())
    .chain((op) => fc.tuple(fc.constant(op), fc.constantFrom(...Object.keys(queryFields(op))), adversarialValue()))
    .map(([op, name, value]) => listRequest(op, name, value));

interface Property {
  name: string;
  /** The requests generated (a function: the operations are only known once the API answered). */
  requests: () => fc.Arbitrary<Request>;
  /** Requests run before the generated ones; `runs` more are generated after them. */
  examples?: () => Request[];
  runs: number;
  /** The test's timeout, when 180 s is not enough. */
  timeout?: number;
  /** What the answer must be beyond the common properties. */
  also?: (req: Request, response: { status: number; text: string }) => void;
}

const PROPERTIES: Property[] = [
  {
    name: "bodies: JSON values, objects with declared and unknown fields of right and wrong types, huge, unicode, NUL, edge numbers",
    requests: () => withBody().chain((op) => request(op, { body: bodyText(op) })),
    runs: 50,
  },
  {
    name: "query strings: declared parameters with good, bad and adversarial values, unknown ones, broken encoding",
    requests: () => reads().chain((op) => request(op, { query: queryString(op) })),
    runs: NUM_RUNS,
  },
  {
    name: "headers: content types, garbage Authorization, If-Match, Idempotency-Key and X-Request-Id",
    requests: () => anyOperation().chain((op) => request(op, { headers: headers() })),
    runs: NUM_RUNS,
  },
  {
    name: "path ids: random strings, broken encodings, unknown uuids, the other organisation's ids",
    requests: () => withParams().chain((op) => request(op, { path: pathOf(op, pathId()) })),
    runs: NUM_RUNS,
  },
  {
    name: "everything at once",
    requests: () =>
      anyOperation().chain((op) =>
        request(op, { path: pathOf(op, pathId()), query: queryString(op), headers: headers(), body: bodyText(op) }),
      ),
    runs: NUM_RUNS,
  },
  {
    name: "every list endpoint: adversarial cursors, dates and numbers in every query parameter",
    requests: listRequests,
    examples: listExamples,
    runs: NUM_RUNS,
    // Some 900 requests: every fixed value in every parameter of every list endpoint.
    timeout: 400_000,
  },
  {
    name: "deep and wide bodies: nested past the depth limit or holding more values than the limit, in every operation's fields and in a batch's operations",
    requests: () => fc.constantFrom(...withJsonBodyOps()).chain(shapedRequest),
    examples: shapedExamples,
    runs: NUM_RUNS,
    also: refusedWhereItShouldBe,
  },
];

/** What a request is, for comparing two generations: everything sent. */
const sent = (req: Request) => JSON.stringify([req.method, req.path, req.headers, req.body ?? null]);

describe(`generated requests to every operation (seed ${SEED})`, () => {
  it("the operations come from GET /v1, and each is in the OpenAPI document", () => {
    for (const op of operations) expect(operationDoc(op), `${op.method} ${op.path}`).toBeDefined();
  });

  it("there are list endpoints, and the adversarial requests reach each of them at a path it finds", () => {
    expect(listOperations().length).toBeGreaterThan(5);
    for (const op of listOperations()) expect(foundPath(op)).not.toContain(":");
  });

  // Generating every property's requests twice (the deep and wide bodies hold up to the limit's
  // values) is 12 to 26 s of the test process's CPU on a loaded 2-core machine: past the 20 s default.
  it("FC_SEED replays: every property's requests, generated twice from the seed, are the same", { timeout: 60_000 }, () => {
    // Anything random drawn outside fast-check (crypto, Math.random) would make these differ.
    fc.sample(unknownKey(), { seed: SEED, numRuns: 20 }).forEach((key) => expect(isWellFormedApiKey(key), key).toBe(true));
    for (const property of PROPERTIES) {
      const once = fc.sample(property.requests(), { seed: SEED, numRuns: property.runs }).map(sent);
      const again = fc.sample(property.requests(), { seed: SEED, numRuns: property.runs }).map(sent);
      expect(again, property.name).toEqual(once);
    }
  });

  for (const property of PROPERTIES) {
    it(
      property.name,
      async () => {
        const examples = property.examples?.() ?? [];
        // One line per property, so a CI log is enough to replay it.
        console.log(
          `[properties] seed=${SEED} examples=${examples.length} runs=${property.runs} FC_SEED=${SEED} npx vitest run ${FILE} -t ${JSON.stringify(property.name)}`,
        );
        // The fixed examples first (the same every run, drawn from no seed), then the generated runs.
        await examplesHold(examples, property.also);
        await fc.assert(
          fc.asyncProperty(property.requests(), (req) => holds(req, property.also)),
          settings(property.runs),
        );
      },
      property.timeout ?? 180_000,
    );
  }
});
