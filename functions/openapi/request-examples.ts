import { ATTACHMENT_PARENTS } from "../../domain/attachments.ts";
import { DEMO_IDS, DEMO_UPLOAD_FILE } from "../../services/seed/demo-ids.ts";
import type { Operation } from "./examples.ts";

// Request examples that run (examples.ts builds the others from the schemas). Each names records
// of the demo organisation that the first `npm run dev` seeds with fixed ids
// (services/seed/demo-ids.ts DEMO_IDS), so each request example, sent as it is with the demo key
// (the settings area's with the demo owner's session), succeeds; test/api/openapi-examples.test.ts
// sends every one. Changes name records that stay; each delete names a record nothing else points
// at and no other example uses, so any example succeeds on its own or after the others. Dates in
// changes are left out: the demo's dates move with today, an example's would not.

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
  "/v1/settings/applications": { id: ids.applications[0]!, deletable: ids.applications[1]! },
  "/v1/settings/installations": { id: ids.installation, deletable: ids.installation },
  // The demo owner's views (services/seed/demo-views.ts): the settings area's examples run as them.
  "/v1/settings/views": { id: ids.views[0]!, deletable: ids.views[1]! },
  "/v1/notifications": { id: ids.notification },
};

/** Path parameters that the resource's record does not give. */
const PATH_PARAMETERS: Record<string, Record<string, string>> = {
  redeliverWebhookDelivery: { deliveryId: ids.delivery },
  revokeApiKey: { id: ids.apiKeys[0]! },
  replaceApiKey: { id: ids.apiKeys[1]! },
  // The kitchen plumbing waits for the partition layout in the demo.
  removeTaskDependency: { id: ids.tasks[5]!, blockerId: ids.tasks[6]! },
  // The demo's files (services/seed/demo-files.ts), on the record each kind's examples read: one
  // read, one deleted. A download link is signed for 15 minutes, so its example's expiry and
  // signature are of a link long gone: a read of the file (getTaskAttachment) gives a live one.
  ...Object.fromEntries(
    ATTACHMENT_PARENTS.flatMap((parent) => {
      const Name = parent[0]!.toUpperCase() + parent.slice(1);
      const [kept, deletable] = ids.attachments[parent];
      return [
        [`get${Name}Attachment`, { attachmentId: kept! }],
        [`delete${Name}Attachment`, { attachmentId: deletable! }],
      ];
    }),
  ),
  // The demo's multipart uploads (services/seed/demo-files.ts): one a part goes to, then completed; one aborted.
  ...Object.fromEntries(
    ATTACHMENT_PARENTS.flatMap((parent) => {
      const Name = parent[0]!.toUpperCase() + parent.slice(1);
      const [kept, aborted] = ids.uploads[parent];
      return [
        [`get${Name}AttachmentUpload`, { uploadId: kept! }],
        [`upload${Name}AttachmentPart`, { uploadId: kept!, partNumber: "1" }],
        [`complete${Name}AttachmentUpload`, { uploadId: kept! }],
        [`abort${Name}AttachmentUpload`, { uploadId: aborted! }],
      ];
    }),
  ),
  downloadAttachment: { id: ids.attachments.task[0]! },
  // Unfollowing names a record that stays (the deletes remove the deletable ones).
  unfollowTask: { id: ids.tasks[3]! },
  unfollowProject: { id: project! },
  unfollowRisk: { id: ids.risks[0]! },
};

/** An upload's example: the file's bytes, and the name, size and SHA-256 its query states of them. */
const UPLOAD_EXAMPLE = {
  body: "Handover checklist\n1. Test certificates to the client.\n2. Keys to the facilities manager.\n",
  // A multipart part's example is the same bytes: the whole file the demo's uploads state.
  query: { name: DEMO_UPLOAD_FILE.name, size: DEMO_UPLOAD_FILE.size, sha256: DEMO_UPLOAD_FILE.sha256 },
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
  createApplication: {
    name: "Acme Planner",
    redirectUris: ["https://planner.acme.example/oauth/callback"],
    scopes: ["tasks.manage", "projects.read"],
  },
  updateApplication: { name: "Site diary (new)", redirectUris: ["https://diary.example.com/oauth/callback", "http://127.0.0.1/callback"] },
  rotateClientSecret: { overlapSeconds: 3600 },
  changeApplicationSettings: { allowDynamicClientRegistration: true, requireVerifiedEmail: true },
  // Tom signs in (the members example) and is on the demo's personnel: the link makes him that person.
  linkMemberPersonnel: { personnelId: tom },
  // Its own name: the create example above saves "My overdue tasks" of the same list.
  updateView: { name: "Open work, soonest first", shared: false },
  // A file of 150 MiB in 16 MiB parts (the demo's quota is 10 GiB).
  ...Object.fromEntries(
    ATTACHMENT_PARENTS.map((parent) => [
      `start${parent[0]!.toUpperCase() + parent.slice(1)}AttachmentUpload`,
      {
        name: "site-survey.mp4",
        size: 157286400,
        sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        partSize: 16777216,
      },
    ]),
  ),
};

/** The example path parameters of an operation on `path` (OpenAPI style), or undefined when it takes none. */
export function examplePathParameters(operationId: string, method: string, path: string): Record<string, string> {
  const values: Record<string, string> = { ...PATH_PARAMETERS[operationId] };
  const collection = /^(\/v1(?:\/settings)?\/[\w-]+)\/\{/.exec(path)?.[1];
  const record = collection ? EXAMPLE_RECORDS[collection] : undefined;
  if (path.includes("{externalId}")) values.externalId = UPSERT_EXTERNAL_ID;
  // A file's delete removes the file, not its record; an upload's abort, the upload.
  const deletes = method === "delete" && !path.includes("{attachmentId}") && !path.includes("{uploadId}");
  for (const name of ["id", "userId"]) {
    if (path.includes(`{${name}}`) && values[name] === undefined && record)
      values[name] = deletes && record.deletable ? record.deletable : record.id;
  }
  return values;
}

/** Sets each operation's path parameter and body examples to the runnable ones above. */
export function addRequestExamples(document: { paths?: Record<string, Record<string, unknown>> }): void {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item) as [
      string,
      Operation & { parameters?: { name?: string; in?: string; example?: unknown; schema?: { type?: string } }[] },
    ][]) {
      const parameters = examplePathParameters(operation.operationId ?? "", method, path);
      const upload = operation.requestBody?.content?.["application/octet-stream"];
      const query: Record<string, string | number> = upload ? UPLOAD_EXAMPLE.query : {};
      for (const parameter of operation.parameters ?? []) {
        // A path's values are text; an integer parameter's example is the number (a part's place).
        const value = parameter.in === "path" && parameter.name ? parameters[parameter.name] : undefined;
        if (value !== undefined) parameter.example = parameter.schema?.type === "integer" ? Number(value) : value;
        if (parameter.in === "query" && parameter.name && query[parameter.name] !== undefined) parameter.example = query[parameter.name];
      }
      if (upload) upload.example = UPLOAD_EXAMPLE.body;
      const body = operation.operationId ? REQUEST_BODIES[operation.operationId] : undefined;
      const media = operation.requestBody?.content?.["application/json"];
      if (media && body !== undefined) media.example = body;
    }
  }
}
