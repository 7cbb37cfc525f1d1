import { DEMO_PEOPLE, DEMO_PROJECTS } from "./demo-company.ts";

// The demo organisation's tasks (demo-company.ts): the curated ones, with their dependencies,
// comments and checklists, and as many more as `opsroom seed --tasks N` asks for. References are
// indexes into demo-company.ts's lists and CURATED_TASKS; dates are days from today.

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

export const CURATED_TASKS: DemoTaskPlan[] = [
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
