import {
  DEMO_API_KEYS,
  DEMO_FINANCIAL_ENTRIES,
  DEMO_ISSUES,
  DEMO_LABELS,
  DEMO_MEMBERS,
  DEMO_PEOPLE,
  DEMO_PROJECTS,
  DEMO_RISKS,
  DEMO_WEBHOOKS,
} from "./demo-company.ts";
import { CURATED_TASKS, DEMO_CHECKLIST_ITEMS, DEMO_COMMENTS } from "./demo-tasks.ts";

/** uuidv7-shaped ids with a kind and an index in the last group: 019a8a0e-7c5e-7b52-9a43-KKNNNNNNNNNN. */
const fixed = (kind: number, index: number) =>
  `019a8a0e-7c5e-7b52-9a43-${kind.toString(16).padStart(2, "0")}${index.toString(16).padStart(10, "0")}`;
const each = <T>(kind: number, list: readonly T[]) => list.map((_, index) => fixed(kind, index));

/**
 * The ids of the demo organisation that the first `npm run dev` seeds into an empty database. They
 * are fixed so that the OpenAPI document's request examples name records that exist there: each
 * example, sent as it is, succeeds (functions/openapi/request-examples.ts, test/api/openapi-examples.test.ts).
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
  applications: [fixed(16, 0), fixed(16, 1)],
  installation: fixed(17, 0),
  /** The owner `npm run dev` makes on its first start (and the examples' test), and two views of theirs. */
  owner: fixed(18, 0),
  views: [fixed(19, 0), fixed(19, 1)],
  /** Two files on one record of each kind that holds them (services/seed/demo-files.ts): one the examples read, one they delete. */
  attachments: {
    task: [fixed(20, 0), fixed(20, 1)],
    comment: [fixed(20, 2), fixed(20, 3)],
    risk: [fixed(20, 4), fixed(20, 5)],
    issue: [fixed(20, 6), fixed(20, 7)],
    financialEntry: [fixed(20, 8), fixed(20, 9)],
  },
  /** Two multipart uploads on the same records (services/seed/demo-files.ts): one the examples send a part to and complete, one they abort. */
  uploads: {
    task: [fixed(22, 0), fixed(22, 1)],
    comment: [fixed(22, 2), fixed(22, 3)],
    risk: [fixed(22, 4), fixed(22, 5)],
    issue: [fixed(22, 6), fixed(22, 7)],
    financialEntry: [fixed(22, 8), fixed(22, 9)],
  },
  /** A notification of the owner's (services/seed/demo-views.ts): the example of marking one read names it. */
  notification: fixed(21, 0),
};

/**
 * The file the demo's multipart uploads state (docs/attachments.md "Large files"): small, so one
 * part is the whole of it; its bytes and SHA-256 are the upload examples' (functions/openapi/request-examples.ts).
 */
export const DEMO_UPLOAD_FILE = {
  name: "handover-checklist.txt",
  size: 90,
  sha256: "d39435198f77abd1163f30ab24c1e2cfb24633072adbec2dd39471de90e87fb2",
  partSize: 5 * 1024 * 1024,
};
