// The demo organisation of `opsroom seed` and of the first `npm run dev`: a small building-services
// company with work in every state, so each endpoint and filter has something to show.
// References are indexes into the lists below; dates are days from today, so the demo stays current.

export const DEMO_ORGANISATION_NAME = "Kestrel Building Services";
export const DEMO_KEY_APPLICATION = "opsroom demo";

export const DEMO_PEOPLE = [
  { name: "Maya Okafor", email: "maya.okafor@kestrel.example", role: "Operations director" },
  { name: "Tom Lindqvist", email: "tom.lindqvist@kestrel.example", role: "Project manager" },
  { name: "Priya Raman", email: "priya.raman@kestrel.example", role: "Site supervisor" },
  { name: "Daniel Reyes", email: "daniel.reyes@kestrel.example", role: "Electrician" },
  { name: "Chloe Martin", email: "chloe.martin@kestrel.example", role: "Procurement lead" },
  { name: "Sam Whitaker", email: "sam.whitaker@kestrel.example", role: "Finance and admin" },
];

export const DEMO_PROJECTS = [
  {
    name: "Riverside House office fit-out",
    description: "Third-floor fit-out for 60 staff: partitions, electrics, data cabling and a kitchen.",
    budget: 185000,
    start: -45,
    end: 75,
    status: "active",
    milestones: [
      { name: "Strip-out complete", due: -20, status: "done" },
      { name: "First fix electrics and plumbing", due: 10 },
      { name: "Handover to client", due: 70 },
    ],
  },
  {
    name: "Harbour Street clinic refurbishment",
    description: "Refurbish two consulting rooms and the waiting area while the clinic stays open.",
    budget: 92000,
    start: 14,
    end: 120,
    status: "planned",
    milestones: [
      { name: "Surveys and permits", due: 30 },
      { name: "Works complete", due: 110 },
    ],
  },
  {
    name: "Winter maintenance programme",
    description: "Planned maintenance across the six buildings under contract before the cold months.",
    budget: 24000,
    start: -10,
    end: 90,
    status: "active",
    milestones: [
      { name: "Boiler services done", due: 20 },
      { name: "Roof and gutter checks done", due: 45 },
      { name: "Frost protection checks done", due: 60 },
    ],
  },
  {
    name: "Car park resurfacing (quote)",
    description: "Quote for resurfacing and relining the Harbour Street car park; nothing planned until it is accepted.",
    budget: 18000,
    start: 40,
    end: 70,
    status: "planned",
    milestones: [],
  },
] as const;

// Risks, issues and money of the first project; references are indexes into DEMO_PEOPLE.
export const DEMO_RISKS = [
  {
    title: "Data cabinet delivery slips past first fix",
    description: "The supplier quotes six weeks; first fix needs it in four.",
    probability: "high",
    impact: "medium",
    status: "open",
    owner: 4,
    mitigation: "Order a stock cabinet now and swap it at second fix.",
  },
  {
    title: "Asbestos found behind the kitchen wall",
    description: "The survey could not reach behind the old units.",
    probability: "low",
    impact: "high",
    status: "open",
    owner: 1,
    mitigation: "Keep the licensed contractor on call.",
  },
] as const;

export const DEMO_ISSUES = [
  {
    title: "Riser cupboard door will not lock",
    description: "Found at the site walk; the cabling contractor needs it secure.",
    severity: "medium",
    status: "open",
    reporter: 2,
    assignee: 3,
  },
  {
    title: "Wrong ceiling tile colour delivered",
    description: "Delivered white instead of off-white; the supplier will collect.",
    severity: "low",
    status: "in_progress",
    reporter: 2,
    assignee: 4,
  },
] as const;

export const DEMO_FINANCIAL_ENTRIES = [
  { kind: "cost", amount: "14250.00", currency: "GBP", date: -20, description: "Strip-out labour and skips", reference: "PO-2026-0112" },
  {
    kind: "invoice",
    amount: "46250.00",
    currency: "GBP",
    date: -15,
    description: "Stage 1 invoice: strip-out",
    reference: "INV-2026-0042",
  },
] as const;

/** Labels of the organisation; the last one no task has (the API reference's delete example removes it). */
export const DEMO_LABELS = [
  { name: "Client visible", colour: "#0969da", description: "The client sees this on the shared programme." },
  { name: "Safety", colour: "#cf222e", description: null },
  { name: "Waiting on supplier", colour: "#bf8700", description: null },
  { name: "Winter works", colour: "#8250df", description: "Not used yet." },
] as const;

export interface DemoTaskPlan {
  title: string;
  project: number;
  /** Index into the project's milestones. */
  milestone?: number;
  assignee: number;
  status: "todo" | "in_progress" | "blocked" | "done" | "cancelled";
  priority: "low" | "medium" | "high" | "urgent";
  due: number;
  /** Indexes into DEMO_LABELS. */
  labels?: readonly number[];
  /** Index into the curated tasks: the task this one is a subtask of (an earlier one). */
  parent?: number;
}

const CURATED_TASKS: DemoTaskPlan[] = [
  { title: "Remove old ceiling tiles and grid", project: 0, milestone: 0, assignee: 2, status: "done", priority: "medium", due: -25 },
  { title: "Skip hire for strip-out waste", project: 0, milestone: 0, assignee: 4, status: "done", priority: "low", due: -30 },
  { title: "Asbestos survey sign-off", project: 0, milestone: 0, assignee: 1, status: "done", priority: "urgent", due: -35, labels: [1] },
  {
    title: "Run new lighting circuits, north side",
    project: 0,
    milestone: 1,
    assignee: 3,
    status: "in_progress",
    priority: "high",
    due: 6,
  },
  {
    title: "Order data cabinet and patch panels",
    project: 0,
    milestone: 1,
    assignee: 4,
    status: "blocked",
    priority: "high",
    due: 4,
    labels: [2],
  },
  { title: "Kitchen plumbing first fix", project: 0, milestone: 1, assignee: 2, status: "todo", priority: "medium", due: 9 },
  { title: "Agree partition layout with client", project: 0, assignee: 1, status: "in_progress", priority: "high", due: 3, labels: [0] },
  { title: "Snagging walk-round", project: 0, milestone: 2, assignee: 2, status: "todo", priority: "medium", due: 65 },
  { title: "Prepare handover pack and O&M manuals", project: 0, milestone: 2, assignee: 1, status: "todo", priority: "low", due: 68 },
  { title: "Measured survey of consulting rooms", project: 1, milestone: 0, assignee: 2, status: "todo", priority: "high", due: 21 },
  { title: "Submit building control application", project: 1, milestone: 0, assignee: 1, status: "todo", priority: "urgent", due: 25 },
  { title: "Phasing plan so the clinic stays open", project: 1, assignee: 0, status: "in_progress", priority: "high", due: 12 },
  { title: "Quote for infection-control flooring", project: 1, assignee: 4, status: "todo", priority: "medium", due: 18 },
  { title: "Night-shift labour for waiting area", project: 1, milestone: 1, assignee: 0, status: "cancelled", priority: "low", due: 60 },
  {
    title: "Service boilers at Mill Lane and Quay Street",
    project: 2,
    milestone: 0,
    assignee: 3,
    status: "in_progress",
    priority: "high",
    due: 8,
  },
  {
    title: "Replace pressure vessel at Quay Street",
    project: 2,
    milestone: 0,
    assignee: 3,
    status: "blocked",
    priority: "urgent",
    due: 5,
    labels: [1, 2],
    parent: 14,
  },
  { title: "Gas safety certificates for all sites", project: 2, milestone: 0, assignee: 5, status: "todo", priority: "high", due: 18 },
  { title: "Clear gutters at the three terraces", project: 2, milestone: 1, assignee: 2, status: "todo", priority: "medium", due: 40 },
  { title: "Invoice October maintenance visits", project: 2, assignee: 5, status: "done", priority: "medium", due: -3 },
  { title: "Renew scaffold tower inspection", project: 2, assignee: 4, status: "todo", priority: "low", due: 30 },
];

/** Dependencies between the curated tasks: [task, the task it is blocked by], by index. */
export const DEMO_DEPENDENCIES: readonly (readonly [number, number])[] = [
  [5, 6], // the kitchen plumbing waits for the partition layout
  [7, 3], // snagging waits for the lighting circuits
  [16, 14], // gas certificates wait for the boiler services
];

/** Comments on the curated tasks, by index; written by the demo key once it exists. */
export const DEMO_COMMENTS = [
  { task: 4, body: "Supplier confirmed **six weeks** for the 42U cabinet. Asking for a stock unit instead." },
  { task: 4, body: "Stock 24U unit available Thursday; it will do until second fix." },
  { task: 3, body: "North side done to the corridor; south side starts Monday." },
] as const;

/** The checklists of curated tasks, by index. */
export const DEMO_CHECKLIST_ITEMS = [
  { task: 3, title: "Isolate the north-side distribution board", done: true },
  { task: 3, title: "Pull cables to the corridor lights", done: true },
  { task: 3, title: "Test and label each circuit", done: false },
  { task: 4, title: "Confirm the cabinet size with the client's IT", done: false },
] as const;

// Material for the tasks beyond the curated ones (`opsroom seed --tasks N`).
const ACTIONS = ["Inspect", "Replace", "Repair", "Quote for", "Order", "Test", "Paint", "Certify", "Clean", "Measure"];
const SUBJECTS = [
  "fire doors",
  "emergency lighting",
  "radiators",
  "window seals",
  "floor boxes",
  "extractor fans",
  "handrails",
  "door closers",
  "sockets",
  "ceiling tiles",
  "smoke detectors",
  "drainage",
];
const PLACES = ["ground floor", "level 1", "level 2", "stairwell", "plant room", "car park", "reception"];
const STATUS_MIX = ["todo", "todo", "todo", "in_progress", "in_progress", "done", "done", "todo", "blocked", "cancelled"] as const;
const PRIORITY_MIX = ["medium", "low", "high", "medium", "medium", "urgent", "low", "high"] as const;

/** The projects work is planned in (not a quote, which has no milestones yet). */
const WORK_PROJECTS = DEMO_PROJECTS.flatMap((project, index) => (project.milestones.length > 0 ? [index] : []));

/** `count` tasks: the curated ones first, then generated ones spread over projects, people and states. */
export function planDemoTasks(count: number): DemoTaskPlan[] {
  const plans = CURATED_TASKS.slice(0, count);
  for (let n = plans.length; n < count; n++) {
    const project = WORK_PROJECTS[n % WORK_PROJECTS.length]!;
    // Advances once per pass over the projects, so every person and milestone meets every project.
    const round = Math.floor(n / WORK_PROJECTS.length);
    const milestones = DEMO_PROJECTS[project]!.milestones.length;
    // One choice in (milestones + 1) is "no milestone", as in real projects.
    const milestone = round % (milestones + 1);
    plans.push({
      title: `${ACTIONS[n % ACTIONS.length]} ${SUBJECTS[n % SUBJECTS.length]}, ${PLACES[n % PLACES.length]} (#${n + 1})`,
      project,
      ...(milestone < milestones ? { milestone } : {}),
      assignee: round % DEMO_PEOPLE.length,
      status: STATUS_MIX[n % STATUS_MIX.length]!,
      priority: PRIORITY_MIX[n % PRIORITY_MIX.length]!,
      due: (n % 150) - 30,
    });
  }
  return plans;
}

export const DEFAULT_DEMO_TASKS = CURATED_TASKS.length;

// The settings area's demo: people who sign in besides the owner, an open invitation and two
// application keys (seeded only with the example ids: users' addresses are unique across organisations).
export const DEMO_MEMBERS = [
  { name: "Tom Lindqvist", email: "tom.lindqvist@kestrel.example", role: "member" },
  { name: "Chloe Martin", email: "chloe.martin@kestrel.example", role: "member" },
] as const;
export const DEMO_INVITATION = { email: "priya.raman@kestrel.example", role: "member" } as const;
export const DEMO_API_KEYS = [
  { application: "Warehouse sync", scopes: ["tasks.manage"] },
  { application: "Finance export", scopes: ["financials.read"] },
] as const;
/** Paths on the receiver the seed is given (`npm run dev` runs one: cli/dev/webhook-sink.ts). */
export const DEMO_WEBHOOKS = [
  { path: "/hooks/site-chat", events: ["task.*"], description: "Tasks to the site team's chat" },
  { path: "/hooks/project-board", events: ["project.*"], description: "The old project board (being retired)" },
] as const;

/** uuidv7-shaped ids with a kind and an index in the last group: 019a8a0e-7c5e-7b52-9a43-KKNNNNNNNNNN. */
const fixed = (kind: number, index: number) =>
  `019a8a0e-7c5e-7b52-9a43-${kind.toString(16).padStart(2, "0")}${index.toString(16).padStart(10, "0")}`;
const each = <T>(kind: number, list: readonly T[]) => list.map((_, index) => fixed(kind, index));

/**
 * The ids of the demo organisation that the first `npm run dev` seeds into an empty database. They
 * are fixed so that the OpenAPI document's request examples name records that exist there: each
 * example, sent as it is, succeeds (functions/openapi/examples.ts, test/api/openapi-examples.test.ts).
 * Only one organisation of a database can have them; `opsroom seed` makes others with new ids.
 */
export const DEMO_IDS = {
  organisation: fixed(0, 0),
  people: each(1, DEMO_PEOPLE),
  projects: each(2, DEMO_PROJECTS),
  milestones: DEMO_PROJECTS.map((project, p) => project.milestones.map((_, m) => fixed(3, p * 16 + m))),
  tasks: each(4, CURATED_TASKS),
  risks: each(5, DEMO_RISKS),
  issues: each(6, DEMO_ISSUES),
  financialEntries: each(7, DEMO_FINANCIAL_ENTRIES),
  webhooks: each(8, DEMO_WEBHOOKS),
  delivery: fixed(9, 0),
  members: each(10, DEMO_MEMBERS),
  invitation: fixed(11, 0),
  apiKeys: each(12, DEMO_API_KEYS),
  labels: each(13, DEMO_LABELS),
  comments: each(14, DEMO_COMMENTS),
  checklistItems: each(15, DEMO_CHECKLIST_ITEMS),
};
