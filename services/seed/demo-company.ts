// The demo organisation of `opsroom seed` and of the first `npm run dev`: a small building-services
// company with work in every state, so each endpoint and filter has something to show. Here its
// people, projects, risks, issues, money, labels and settings area; its tasks in demo-tasks.ts, the
// fixed ids of the API reference's examples in demo-ids.ts.
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
