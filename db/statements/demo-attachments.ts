import type { Database } from "../client.ts";
import { attachments, attachmentUploads, events } from "../schema/index.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";

// The demo organisation's files take fixed ids (services/seed/demo-files.ts), so the OpenAPI
// document's examples can name them. Their bytes can only reach R2 through the Worker's upload,
// which gives each file a new id; this renames it, in the row and in its attachment.created event.

/** Gives the demo's multipart upload `from` (no part yet, no event) the id `to`. */
export async function renameDemoUpload(db: Database, orgId: string, from: string, to: string): Promise<void> {
  await run(db, sql`update ${attachmentUploads} set id = ${to}::uuid where org_id = ${orgId}::uuid and id = ${from}::uuid`);
}

/** Gives the demo's attachment `from` the id `to` (the demo organisation only, before anyone has read it). */
export async function renameDemoAttachment(db: Database, orgId: string, from: string, to: string): Promise<void> {
  await run(
    db,
    sql`with renamed as (
          update ${attachments} set id = ${to}::uuid where org_id = ${orgId}::uuid and id = ${from}::uuid returning id
        )
        update ${events} set data = jsonb_set(data, '{id}', to_jsonb(${to}::text))
         where org_id = ${orgId}::uuid and type like 'attachment.%' and data->>'id' = ${from} and exists (select 1 from renamed)`,
  );
}
