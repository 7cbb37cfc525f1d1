import type { Database } from "../../db/client.ts";
import { renameDemoAttachment, renameDemoUpload } from "../../db/statements/demo-attachments.ts";
import { ATTACHMENT_PARENTS, type AttachmentParent } from "../../domain/attachments.ts";
import { RESOURCES } from "../../domain/resources.ts";
import { DEMO_IDS, DEMO_UPLOAD_FILE } from "./demo-ids.ts";

// The demo organisation's files: two on the record of each kind the OpenAPI examples name (one
// they read and download, one they delete), with the fixed ids of DEMO_IDS.attachments. The bytes
// reach R2 only through the Worker, so the caller uploads each (POST .../attachments, with the
// demo key) and this gives it its fixed id: by `npm run dev` on its first start, and by the
// examples' test.

/** The records the examples name (functions/openapi/request-examples.ts EXAMPLE_RECORDS' ids). */
const RECORD_OF: Record<AttachmentParent, string> = {
  task: DEMO_IDS.tasks[3]!,
  comment: DEMO_IDS.comments[0]!,
  risk: DEMO_IDS.risks[0]!,
  issue: DEMO_IDS.issues[0]!,
  financialEntry: DEMO_IDS.financialEntries[0]!,
};

export interface DemoFile {
  id: string;
  /** Where it is uploaded: /v1/<records>/<id>/attachments. */
  path: string;
  name: string;
  bytes: Uint8Array;
}

const text = (lines: string[]) => new TextEncoder().encode(lines.join("\n") + "\n");

export const DEMO_FILES: DemoFile[] = ATTACHMENT_PARENTS.flatMap((parent) => {
  const path = `/v1/${RESOURCES[parent].path}/${RECORD_OF[parent]}/attachments`;
  const [kept, deletable] = DEMO_IDS.attachments[parent];
  return [
    { id: kept!, path, name: "site-notes.txt", bytes: text(["Site notes", `Filed against the ${RESOURCES[parent].nouns[0]}.`]) },
    { id: deletable!, path, name: "superseded.txt", bytes: text(["Superseded: see site-notes.txt."]) },
  ];
});

export interface DemoUpload {
  id: string;
  /** Where it is started: /v1/<records>/<id>/attachment-uploads. */
  path: string;
  body: typeof DEMO_UPLOAD_FILE;
}

/** Two uploads, no part yet, on the record of each kind the examples name: one they complete, one they abort. */
export const DEMO_UPLOADS: DemoUpload[] = ATTACHMENT_PARENTS.flatMap((parent) =>
  DEMO_IDS.uploads[parent].map((id) => ({
    id,
    path: `/v1/${RESOURCES[parent].path}/${RECORD_OF[parent]}/attachment-uploads`,
    body: DEMO_UPLOAD_FILE,
  })),
);

/**
 * Uploads each demo file with `upload` and starts each demo upload with `start` (each answering the
 * id the Worker gave it), then gives each its fixed id.
 */
export async function seedDemoFiles(
  db: Database,
  upload: (file: DemoFile) => Promise<string>,
  start: (upload: DemoUpload) => Promise<string>,
): Promise<void> {
  for (const file of DEMO_FILES) await renameDemoAttachment(db, DEMO_IDS.organisation, await upload(file), file.id);
  for (const started of DEMO_UPLOADS) await renameDemoUpload(db, DEMO_IDS.organisation, await start(started), started.id);
}
