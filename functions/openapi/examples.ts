// Gives every operation of the OpenAPI document a concrete example of its request body and of its
// success response, assembled from the field-level examples the schemas carry
// (`.openapi({ example })`), so the reference shows a whole request and answer for each call and
// generated clients' docs get them too. test/api/openapi-examples.test.ts parses each example with
// the route's own zod schema, so an example the API would refuse (or never send) fails the suite.

import { DEMO_IDS } from "../../services/seed/demo-company.ts";

type JsonSchema = { [keyword: string]: unknown };
type Components = Record<string, JsonSchema>;

const MAX_DEPTH = 12;

/** Values for string formats that carry no example of their own. */
const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10",
  date: "2026-12-15",
  "date-time": "2026-11-21T23:00:00.000Z",
  email: "ada@example.com",
  uri: "https://example.com/hooks/opsroom",
  url: "https://example.com/hooks/opsroom",
};

/**
 * Examples for string fields that carry none of their own, by field name: what a reader expects
 * there, rather than "string".
 */
const FIELD_EXAMPLES: Record<string, string> = {
  description: "Agreed with the client at the site meeting on Tuesday.",
  mitigation: "Order a stock cabinet now and swap it at second fix.",
  nextCursor: "eyJ2IjoxLCJpZCI6IjAxOWE4YTBlIn0",
  message: "done",
  disabledReason: "every delivery failed for 3 days",
  webhookId: FORMAT_EXAMPLES.uuid!,
  eventId: FORMAT_EXAMPLES.uuid!,
  eventType: "task.updated",
  error: "connection refused",
  responseExcerpt: "ok",
  name: "Ada Lovelace",
  email: FORMAT_EXAMPLES.email!,
  url: "https://opsroom.example.com/invitations#k3Jd9sQx",
  scopes: "tasks.read",
};

/**
 * The create schema whose field examples also serve `name`: a task's title reads the same in
 * Task, CreateTask and UpdateTask, so the example is written once, on the create schema.
 */
function createSchemaFor(name: string, components: Components): JsonSchema | undefined {
  const resource = name.replace(/^(Update|Created)/, "");
  return name === `Create${resource}` ? undefined : components[`Create${resource}`];
}

/**
 * A value that fits `schema`: its own example, else one built from its parts. `sibling` is a
 * schema with the same field names (the create schema) whose examples fill gaps.
 */
export function exampleOf(schema: JsonSchema, components: Components, depth = 0, sibling?: JsonSchema, field?: string): unknown {
  if (depth > MAX_DEPTH) return null;
  const next = (inner: unknown, innerSibling?: JsonSchema, innerField = field) =>
    exampleOf((inner ?? {}) as JsonSchema, components, depth + 1, innerSibling, innerField);
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop()!;
    return next(components[name], createSchemaFor(name, components));
  }
  const siblingExample = sibling && exampleIfGiven(sibling);
  if (siblingExample && !hasOwnExample(schema)) return siblingExample.value;
  // Keywords are checked by value: zod-openapi leaves some present but undefined.
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  // A nullable field shows its value, not null: that is the informative half.
  if (variants) return next(variants.find((variant) => variant.type !== "null") ?? variants[0], sibling);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (Array.isArray(schema.allOf)) {
    const own = type === "object" ? (next({ ...schema, allOf: undefined }, sibling) as object) : {};
    return Object.assign({}, ...schema.allOf.map((part) => next(part)), own);
  }
  switch (type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const siblingProperties = (sibling?.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, next(property, siblingProperties[name], name)]),
      );
    }
    case "array":
      return [next(schema.items, sibling?.items as JsonSchema | undefined)];
    case "string":
      return FORMAT_EXAMPLES[String(schema.format)] ?? (field && FIELD_EXAMPLES[field]) ?? "string";
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
    case "boolean":
      return true;
    default:
      return null;
  }
}

function hasOwnExample(schema: JsonSchema): boolean {
  return ["example", "examples", "const", "enum", "default", "$ref"].some((keyword) => schema[keyword] !== undefined);
}

/** The sibling field's explicit example, if it has one (not one built from its type). */
function exampleIfGiven(schema: JsonSchema): { value: unknown } | undefined {
  if (schema.example !== undefined) return { value: schema.example };
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] };
  return undefined;
}

interface MediaType {
  schema?: JsonSchema;
  example?: unknown;
}

interface Operation {
  operationId?: string;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

/** The envelope message the API sends: "createTask" -> "task created", "getTask" -> "task", "listTasks" -> "3 tasks". */
function messageFor(operationId: string, example: { count?: unknown }): string | undefined {
  const match = /^(create|update|delete|get|list)([A-Z]\w*)$/.exec(operationId);
  if (!match) return undefined;
  const noun = match[2]!.replace(/[A-Z]/g, (letter, at: number) => `${at === 0 ? "" : " "}${letter.toLowerCase()}`);
  if (match[1] === "list") return typeof example.count === "number" ? `${example.count} ${noun}` : undefined;
  return match[1] === "get" ? noun : `${noun} ${match[1]}d`;
}

/** Sets `example` on each operation's JSON request body and 2xx responses that lack one. */
export function addOperationExamples(document: {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Components };
}): void {
  const components = document.components?.schemas ?? {};
  const fill = (media: MediaType | undefined) => {
    if (media?.schema && media.example === undefined) media.example = exampleOf(media.schema, components);
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item) as Operation[]) {
      fill(operation.requestBody?.content?.["application/json"]);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.["application/json"];
        if (!status.startsWith("2") || !media) continue;
        fill(media);
        // The schemas' one example message ("3 tasks") is shared by every resource: reworded per operation.
        const example = media.example as { message?: unknown; count?: unknown } | undefined;
        const message = example && operation.operationId && messageFor(operation.operationId, example);
        if (example && typeof example.message === "string" && message) example.message = message;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Request examples that run. Each names records of the demo organisation that the first
// `npm run dev` seeds with fixed ids (services/seed/demo-company.ts DEMO_IDS), so each request
// example, sent as it is with the demo key (the settings area's with the demo owner's session),
// succeeds; test/api/openapi-examples.test.ts sends every one. Changes name records that stay;
// each delete names a record nothing else points at and no other example uses, so any example
// succeeds on its own or after the others. Dates in changes are left out: the demo's dates move
// with today, an example's would not.

const ids = DEMO_IDS;
const [project, , , quote] = ids.projects;
const firstFix = ids.milestones[0]![1]!;
const [, tom, priya, daniel, chloe] = ids.people;

/** Per resource path: the record examples read and change, and the one its delete removes. */
const EXAMPLE_RECORDS: Record<string, { id: string; deletable?: string }> = {
  "/v1/projects": { id: project!, deletable: quote! },
  "/v1/milestones": { id: firstFix, deletable: ids.milestones[2]![2]! },
  "/v1/tasks": { id: ids.tasks[3]!, deletable: ids.tasks[19]! },
  "/v1/labels": { id: ids.labels[0]!, deletable: ids.labels[3]! },
  "/v1/comments": { id: ids.comments[0]!, deletable: ids.comments[1]! },
  "/v1/checklist-items": { id: ids.checklistItems[2]!, deletable: ids.checklistItems[3]! },
  "/v1/risks": { id: ids.risks[0]!, deletable: ids.risks[1]! },
  "/v1/issues": { id: ids.issues[0]!, deletable: ids.issues[1]! },
  "/v1/financial-entries": { id: ids.financialEntries[0]!, deletable: ids.financialEntries[1]! },
  "/v1/personnel": { id: daniel! },
  "/v1/webhooks": { id: ids.webhooks[0]!, deletable: ids.webhooks[1]! },
  "/v1/settings/members": { id: ids.members[0]!, deletable: ids.members[1]! },
  "/v1/settings/invitations": { id: ids.invitation, deletable: ids.invitation },
};

/** Path parameters that the resource's record does not give. */
const PATH_PARAMETERS: Record<string, Record<string, string>> = {
  redeliverWebhookDelivery: { deliveryId: ids.delivery },
  revokeApiKey: { id: ids.apiKeys[0]! },
  replaceApiKey: { id: ids.apiKeys[1]! },
  // The kitchen plumbing waits for the partition layout in the demo.
  removeTaskDependency: { id: ids.tasks[5]!, blockerId: ids.tasks[6]! },
};

/** The external id PUT examples use (a create's example uses another, so both run). */
const UPSERT_EXTERNAL_ID = "crm-4472";

/** Bodies, by operationId. Creates' dates are absolute: nothing in the demo depends on them. */
const REQUEST_BODIES: Record<string, unknown> = {
  createProject: {
    name: "Warehouse move",
    budget: 25000,
    startDate: "2026-12-15",
    endDate: "2027-03-31",
    status: "planned",
    externalId: "crm-4471",
  },
  updateProject: { budget: 190000, description: "Third-floor fit-out for 64 staff after the client's late change." },
  upsertProject: { name: "Warehouse move, phase 2", budget: 40000, startDate: "2027-04-01", endDate: "2027-06-30", status: "planned" },
  createMilestone: { name: "Data cabling tested", dueDate: "2027-01-20", externalId: "crm-4471" },
  updateMilestone: { name: "First fix electrics, plumbing and data", description: "Data added at the client's request." },
  upsertMilestone: { projectId: project, name: "Client walk-round", dueDate: "2027-02-10" },
  createTask: {
    title: "Book the removal van",
    projectId: project,
    milestoneId: firstFix,
    assigneeId: chloe,
    dueDate: "2027-01-08",
    priority: "high",
    labelIds: [ids.labels[0]],
    externalId: "crm-4471",
  },
  updateTask: {
    priority: "urgent",
    assigneeId: priya,
    description: "The client moved the north-side desks; re-check the lighting layout.",
  },
  upsertTask: {
    title: "Label the patch panels",
    projectId: project,
    milestoneId: firstFix,
    assigneeId: daniel,
    dueDate: "2027-01-12",
    priority: "medium",
    parentId: ids.tasks[4],
  },
  // The lighting circuits wait for the measured survey of the clinic: across projects is allowed.
  addTaskDependency: { blockedBy: ids.tasks[9] },
  createLabel: { name: "Asbestos", colour: "#cf222e", description: "Licensed work only.", externalId: "crm-4471" },
  updateLabel: { colour: "#1a7f37", description: "The client sees this on the shared programme and in the weekly report." },
  upsertLabel: { name: "Night work", colour: "#57606a" },
  createComment: { body: "Lighting layout re-checked against the new desk plan: no change needed." },
  updateComment: { body: "Supplier confirmed **six weeks** for the 42U cabinet; a stock 24U unit is on order instead." },
  upsertComment: { taskId: ids.tasks[3], body: "Imported from the site diary: circuits tested, certificates to follow." },
  createChecklistItem: { title: "Photograph the meter readings", externalId: "crm-4471" },
  updateChecklistItem: { done: true },
  upsertChecklistItem: { taskId: ids.tasks[3], title: "Hand the test certificates to the client", done: false },
  createRisk: {
    projectId: project,
    title: "Lift out of service during delivery",
    probability: "medium",
    impact: "medium",
    ownerId: tom,
    mitigation: "Book the goods lift for the morning.",
  },
  updateRisk: { status: "mitigated", mitigation: "A stock cabinet is ordered; swap it at second fix." },
  upsertRisk: {
    projectId: project,
    title: "Client changes the layout after first fix",
    probability: "medium",
    impact: "high",
    ownerId: tom,
  },
  createIssue: {
    projectId: project,
    title: "Loading dock door jams",
    severity: "medium",
    reporterId: priya,
    assigneeId: daniel,
    externalId: "crm-4471",
  },
  updateIssue: { status: "in_progress", assigneeId: daniel },
  upsertIssue: { projectId: project, title: "Fire door closer too strong", severity: "low", reporterId: priya },
  createFinancialEntry: {
    projectId: project,
    kind: "cost",
    amount: "1234.50",
    currency: "GBP",
    date: "2026-12-15",
    description: "Cable tray and fixings",
    reference: "PO-2026-0140",
    externalId: "crm-4471",
  },
  updateFinancialEntry: { reference: "PO-2026-0113", description: "Strip-out labour, skips and a second skip" },
  upsertFinancialEntry: {
    projectId: project,
    kind: "payment",
    amount: "46250.00",
    currency: "GBP",
    date: "2026-12-20",
    reference: "BACS-77120",
  },
  createPerson: { name: "Ada Lovelace", email: "ada.lovelace@kestrel.example", role: "Estimator", externalId: "crm-4471" },
  updatePerson: { role: "Lead electrician" },
  upsertPerson: { name: "Grace Hopper", email: "grace.hopper@kestrel.example", role: "Quantity surveyor" },
  createWebhook: {
    url: "https://example.com/hooks/opsroom-money",
    events: ["financialEntry.*"],
    projectId: project,
    description: "Money to the finance system",
  },
  updateWebhook: { events: ["task.*", "milestone.*"], description: "Tasks and milestones to the site team's chat" },
  rotateWebhookSecret: { overlapSeconds: 3600 },
  replayWebhook: { after: 0 },
  switchOrganisation: { orgId: ids.organisation },
  changeMemberRole: { role: "admin" },
  createInvitation: { email: "sam.whitaker@kestrel.example", role: "member" },
  createApiKey: { name: "Payroll export", scopes: ["organisation.read", "financials.read"] },
};

/** The example path parameters of an operation on `path` (OpenAPI style), or undefined when it takes none. */
export function examplePathParameters(operationId: string, method: string, path: string): Record<string, string> {
  const values: Record<string, string> = { ...PATH_PARAMETERS[operationId] };
  const collection = /^(\/v1(?:\/settings)?\/[\w-]+)\/\{/.exec(path)?.[1];
  const record = collection ? EXAMPLE_RECORDS[collection] : undefined;
  if (path.includes("{externalId}")) values.externalId = UPSERT_EXTERNAL_ID;
  for (const name of ["id", "userId"]) {
    if (path.includes(`{${name}}`) && values[name] === undefined && record)
      values[name] = method === "delete" && record.deletable ? record.deletable : record.id;
  }
  return values;
}

/** Sets each operation's path parameter and body examples to the runnable ones above. */
export function addRequestExamples(document: { paths?: Record<string, Record<string, unknown>> }): void {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item) as [
      string,
      Operation & { parameters?: { name?: string; in?: string; example?: unknown }[] },
    ][]) {
      const parameters = examplePathParameters(operation.operationId ?? "", method, path);
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === "path" && parameter.name && parameters[parameter.name] !== undefined)
          parameter.example = parameters[parameter.name];
      }
      const body = operation.operationId ? REQUEST_BODIES[operation.operationId] : undefined;
      const media = operation.requestBody?.content?.["application/json"];
      if (media && body !== undefined) media.example = body;
    }
  }
}
