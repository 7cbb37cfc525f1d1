import type { Actor } from "../../domain/actor.ts";
import { MAX_COMMENTS_PER_TASK } from "../../domain/limits.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { comments, tasks } from "../schema/index.ts";
import { filesOf } from "./attachment-cascades.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import { systemActor } from "./engine/events.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import { projectOfTask, taskHasRoom, taskOfOrganisation } from "./engine/references.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./engine/resource.ts";
import { RULES } from "./engine/rules.ts";
import { sql } from "./engine/sql-tag.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";
import type { Rule } from "./engine/write-ctes.ts";

// Comments on tasks: listed and written under the task, reached by their own id otherwise. The
// author is whoever wrote it (an API key, a person, or opsroom itself), set by the statement from
// the caller; only the author, or an owner or admin, changes or deletes a comment.

export const commentResource = defineResource(RESOURCES.comment, comments, { parent: tasks });
export type CommentRecord = RecordOf<typeof commentResource>;
/** What a client sets: the body (and an externalId); the task, project and author follow from the call. */
export type CommentValues = Pick<FieldsOf<typeof commentResource>, "body" | "externalId">;
export type NewComment = CommentValues & Pick<CommentRecord, "taskId" | "body">;

const { locked: l } = commentResource;

/** The task's project and the caller as the author: what a new comment takes from its call. */
const fromCall = (taskId: string) => ({ projectId: projectOfTask(taskId), author: sql`coalesce((select actor from key), ${systemActor})` });

/** `taskComments`: the task holds fewer than MAX_COMMENTS_PER_TASK comments (references.ts taskHasRoom). */
const hasRoom = (taskId: string) => taskHasRoom("taskComments", comments, taskId, MAX_COMMENTS_PER_TASK);

export function createComment(db: Database, actor: Actor, values: NewComment, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, commentResource, {
    values: { ...values, ...fromCall(values.taskId) },
    references: [hasRoom(values.taskId)],
    idempotency,
    fresh: true,
  });
}

/**
 * `author`: the caller wrote the locked comment `l` (the same key, or the same person), or is an
 * owner or admin (a session's role; opsroom itself counts as owner).
 */
const byAuthorOrAdmin: Rule<typeof RULES.author> = {
  name: RULES.author,
  holds: sql`coalesce(${l.author}->>'type' = (select actor->>'type' from key) and ${l.author}->>'id' = (select actor->>'id' from key), false)
    or coalesce((select role from key) in ('owner', 'admin'), false)`,
};

export function updateComment(db: Database, actor: Actor, id: string, patch: CommentValues, ifMatch: number | null) {
  return updateRecord(db, actor, commentResource, { id, patch, ifMatch, references: [], rules: [byAuthorOrAdmin] });
}

/** PUT by external id: the body names the task (a new comment is written on it; an existing one must be on it). */
export function upsertComment(db: Database, actor: Actor, externalId: string, values: NewComment, ifMatch: number | null) {
  return upsertRecord(db, actor, commentResource, {
    externalId,
    values: { ...values, ...fromCall(values.taskId) },
    patch: { body: values.body },
    fixed: ["taskId"],
    ifMatch,
    create: { references: [taskOfOrganisation(values.taskId), hasRoom(values.taskId)] },
    update: { references: [], rules: [byAuthorOrAdmin] },
    fresh: true,
  });
}

export function deleteComment(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, commentResource, { id, ifMatch, blockers: [], rules: [byAuthorOrAdmin], cascades: [filesOf("comment")] });
}
