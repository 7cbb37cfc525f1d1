import { toSnakeCase } from "drizzle-orm/casing";
import type { AttachmentParent } from "../../domain/attachments.ts";
import { attachments, comments } from "../schema/index.ts";
import { attachmentResources } from "./attachments.ts";
import type { Cascade } from "./engine/outbox.ts";
import { sql } from "./engine/sql-tag.ts";

// A record deleted takes its files in the same statement (docs/attachments.md "Deletion"), each
// with its own attachment.deleted (a cascade of outbox.ts, numbered before the record's own
// event), rather than leaving them to the foreign key's silent cascade. Each row's object key goes
// to attachment_removals (the trigger), which R2 is emptied from.

const column = (parent: AttachmentParent) => sql.identifier(toSnakeCase(`${parent}Id`));

/** The files on the deleted record (`changed`), deleted with it, each with attachment.deleted. */
export function filesOf(parent: AttachmentParent): Cascade {
  return {
    name: `files_of_${toSnakeCase(parent)}`,
    resource: attachmentResources[parent],
    action: "deleted",
    body: sql`delete from ${attachments} a using changed c where a.org_id = c.org_id and a.${column(parent)} = c.id returning a.*`,
    count: (upTo) =>
      sql`select count(*) from (select 1 from ${attachments} a where a.org_id = l.org_id and a.${column(parent)} = l.id limit ${upTo}) n`,
  };
}

/** The files on the comments of a deleted task (the comments go with it: tasks.ts taskDeleteCascades). */
export const filesOfTaskComments: Cascade = {
  name: "files_of_task_comments",
  resource: attachmentResources.comment,
  action: "deleted",
  body: sql`delete from ${attachments} a using changed c, ${comments} m
             where m.org_id = c.org_id and m.task_id = c.id and a.org_id = c.org_id and a.comment_id = m.id returning a.*`,
  count: (upTo) =>
    sql`select count(*) from (select 1 from ${attachments} a join ${comments} m on m.id = a.comment_id
                               where m.org_id = l.org_id and m.task_id = l.id and a.org_id = l.org_id limit ${upTo}) n`,
};
