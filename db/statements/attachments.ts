import { toSnakeCase } from "drizzle-orm/casing";
import type { Actor } from "../../domain/actor.ts";
import { ATTACHMENT_PARENTS, attachmentScopes, type AttachmentParent } from "../../domain/attachments.ts";
import type { AuditRequest } from "../../domain/audit.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import {
  attachmentRemovals,
  attachments,
  attachmentUploads,
  comments,
  financialEntries,
  issues,
  organisations,
  risks,
  tasks,
} from "../schema/index.ts";
import { auditCtes, auditTarget } from "./engine/audit.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerRow } from "./engine/caller.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import { systemActor } from "./engine/events.ts";
import { replayCte, type IdempotencyRequest } from "./engine/idempotency.ts";
import { FULL_VIEW, viewProjection } from "./engine/projection.ts";
import { defineResource, type RecordOf } from "./engine/resource.ts";
import { RULES } from "./engine/rules.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";
import type { Reference, Rule } from "./engine/write-ctes.ts";

// Files on records (docs/attachments.md): one resource per kind of record they are attached to,
// over one table, each with its parent's scopes, so a task's files are read with tasks.read and
// added with tasks.manage, and their events are seen by whoever sees the task's. The bytes are in
// R2 (services/attachments.ts); a row deleted leaves its object key in attachment_removals.

export const TABLES = { task: tasks, comment: comments, risk: risks, issue: issues, financialEntry: financialEntries } as const;
const CREATED = { createdAt: "timestamp", updatedAt: "timestamp" } as const;

const resourceOf = <P extends AttachmentParent>(parent: P) =>
  defineResource(
    {
      type: "attachment",
      nouns: ["attachment", "attachments"],
      path: "attachments",
      scopes: RESOURCES[parent].scopes,
      parent,
      sortable: CREATED,
      filters: {},
    } as const,
    attachments,
    { parent: TABLES[parent], hidden: ["objectKey"] },
  );

/** The attachments of each kind of record. */
export const attachmentResources = Object.fromEntries(ATTACHMENT_PARENTS.map((p) => [p, resourceOf(p)])) as {
  [P in AttachmentParent]: ReturnType<typeof resourceOf<P>>;
};
export type AttachmentRecord = RecordOf<(typeof attachmentResources)["task"]>;

/** What an upload writes: the file's facts, the object it was stored as. */
export interface NewAttachment {
  parentId: string;
  name: string;
  size: number;
  sha256: string;
  contentType: string;
  objectKey: string;
}

export const column = (parent: AttachmentParent) => sql.identifier(toSnakeCase(`${parent}Id`));
// The running total a trigger keeps (organisations.attachment_bytes_used), never a sum of the files.
export const usedBytes = sql`(select o.attachment_bytes_used from ${organisations} o where o.id = ${CALLER_ORG})`;
export const quotaBytes = sql`(select o.attachment_quota_bytes from ${organisations} o where o.id = ${CALLER_ORG})`;

/** `size`: the organisation's files and this one fit in its quota (the org is locked first: concurrent uploads see each other). */
const fitsQuota = (size: number): Reference => ({ field: "size", exists: sql`${usedBytes} + ${size}::bigint <= ${quotaBytes}` });

export interface UploadCheck {
  caller: ReturnType<typeof callerOf>;
  parentFound: boolean;
  orgId: string | null;
  usedBytes: number;
  quotaBytes: number;
  /** The stated sizes of the organisation's multipart uploads under way: held against the quota until they end. */
  reservedBytes: number;
  /** The stored first response to this request's Idempotency-Key, if any (a multipart upload's start). */
  replay: { requestHash: string; response: unknown } | null;
}

/** The sizes of the organisation's multipart uploads under way. */
export const reservedBytes = sql`(select coalesce(sum(u.size), 0) from ${attachmentUploads} u where u.org_id = ${CALLER_ORG})`;

/**
 * Before any byte is stored: may the caller attach to this record, and does the file fit the quota?
 * With an Idempotency-Key, also the first response to it, answered before the quota is asked (the
 * first request's file counts in it already).
 */
export async function checkUpload(
  db: Database,
  actor: Actor,
  parent: AttachmentParent,
  parentId: string,
  idempotency?: IdempotencyRequest,
): Promise<UploadCheck> {
  const row = await runOne<
    CallerRow & {
      parent_found: boolean;
      org_id: string | null;
      used: string | number;
      quota: string | number | null;
      reserved: string | number;
      replay: { requestHash: string; response: unknown } | null;
    }
  >(
    db,
    sql`with ${callerCtes(actor, attachmentScopes(parent).manage)}, ${replayCte(idempotency)}
        select ${callerColumns},
               exists (select 1 from ${TABLES[parent]} p where p.org_id = ${CALLER_ORG} and p.id = ${parentId}::uuid) as parent_found,
               (select org_id from auth) as org_id, ${usedBytes} as used, ${quotaBytes} as quota, ${reservedBytes} as reserved,
               (select json_build_object('requestHash', r."requestHash", 'response', r.response) from replay r) as replay`,
  );
  return {
    caller: callerOf(row),
    parentFound: row.parent_found,
    orgId: row.org_id,
    usedBytes: Number(row.used),
    quotaBytes: Number(row.quota ?? 0),
    reservedBytes: Number(row.reserved ?? 0),
    replay: row.replay,
  };
}

export function createAttachment(
  db: Database,
  actor: Actor,
  parent: AttachmentParent,
  values: NewAttachment,
  idempotency?: IdempotencyRequest,
) {
  const { parentId, ...file } = values;
  return createRecord(db, actor, attachmentResources[parent] as (typeof attachmentResources)["task"], {
    values: { ...file, [`${parent}Id`]: parentId, uploader: sql`coalesce((select actor from key), ${systemActor})` } as never,
    references: [fitsQuota(values.size)],
    idempotency,
    fresh: true,
  });
}

/** The attachment of this record, read with the record's read scope. */
export async function getAttachment(db: Database, actor: Actor, parent: AttachmentParent, parentId: string, id: string) {
  const resource = attachmentResources[parent];
  const row = await runOne<CallerRow & { record: AttachmentRecord | null }>(
    db,
    sql`with ${callerCtes(actor, resource.readScope)}
        select ${callerColumns},
               (select ${viewProjection(resource, "r", FULL_VIEW)} from ${attachments} r
                 where r.org_id = ${CALLER_ORG} and r.id = ${id}::uuid and r.${column(parent)} = ${parentId}::uuid) as record`,
  );
  return { caller: callerOf(row), record: row.record };
}

/** attachment.deleted in the audit log: the file, by its id and name, and what it was on. */
const deletedAudit = (parent: AttachmentParent, request: AuditRequest) =>
  auditCtes(
    {
      action: "attachment.deleted",
      source: sql`select c.org_id, ${auditTarget("attachment", sql`c.id`, sql`c.name`)} as target,
                         jsonb_build_object(${`${parent}Id`}::text, jsonb_build_object('from', c.${column(parent)}, 'to', null),
                                            'size', jsonb_build_object('from', c.size, 'to', null),
                                            'sha256', jsonb_build_object('from', c.sha256, 'to', null)) as changes
                    from changed c`,
    },
    request,
  );

/** A file's own delete: its event, and its audit entry, in the one statement. */
export function deleteAttachment(
  db: Database,
  actor: Actor,
  parent: AttachmentParent,
  parentId: string,
  id: string,
  request: AuditRequest,
) {
  const onParent: Rule<typeof RULES.on_parent> = {
    name: RULES.on_parent,
    holds: sql`coalesce(l.${column(parent)} = ${parentId}::uuid, false)`,
  };
  return deleteRecord(db, actor, attachmentResources[parent], {
    id,
    ifMatch: null,
    blockers: [],
    rules: [onParent],
    audit: deletedAudit(parent, request),
  });
}

/** What a signed download needs, found by the attachment's id alone (the signature is the authority). */
export async function downloadOf(db: Database, id: string) {
  const [row] = await run<{ org_id: string; object_key: string; name: string; size: number; content_type: string }>(
    db,
    sql`select org_id, object_key, name, size, content_type from ${attachments} where id = ${id}::uuid`,
  );
  return row
    ? { orgId: row.org_id, objectKey: row.object_key, name: row.name, size: Number(row.size), contentType: row.content_type }
    : null;
}

/** The caller's organisation's file usage and quota, as a column of a statement with the caller's CTEs (GET /v1's). */
export const usageColumn = sql`json_build_object('usedBytes', ${usedBytes}::text, 'quotaBytes', ${quotaBytes}::text)`;

export interface FileUsage {
  usedBytes: number;
  quotaBytes: number;
}

/** The column's JSON (bigints as text) as numbers. */
export const usageOf = (usage: { usedBytes: string | null; quotaBytes: string | null }): FileUsage => ({
  usedBytes: Number(usage.usedBytes ?? 0),
  quotaBytes: Number(usage.quotaBytes ?? 0),
});

/** Object keys left to delete from R2 (the oldest first), each counted as one more attempt. */
export async function pendingRemovals(db: Database, limit: number, keys?: string[]): Promise<string[]> {
  const rows = await run<{ objectKey: string }>(
    db,
    sql`update ${attachmentRemovals} set attempts = attempts + 1
         where object_key in (select object_key from ${attachmentRemovals}
                               ${keys ? sql`where object_key = any(${sql.param(keys)}::text[])` : sql``}
                               order by created_at limit ${limit})
        returning object_key as "objectKey"`,
  );
  return rows.map((r) => r.objectKey);
}

/** The objects are gone from R2: nothing left to do for them. */
export async function forgetRemovals(db: Database, keys: string[]): Promise<void> {
  if (keys.length) await run(db, sql`delete from ${attachmentRemovals} where object_key = any(${sql.param(keys)}::text[])`);
}
