import { comments } from "../../services/comments.ts";
import { CommentSchema, CreateCommentSchema, UpdateCommentSchema, UpsertCommentSchema } from "../schemas/comments.ts";
import { requestsAsIs, resourceRoutes } from "./resource-routes.ts";

// A task's comments: listed and written under the task, reached by their own id otherwise.

export const commentRoutes = resourceRoutes({
  schemas: { record: CommentSchema, create: CreateCommentSchema, update: UpdateCommentSchema, upsert: UpsertCommentSchema },
  summaries: {
    list: "List a task's comments, oldest first",
    create: "Comment on a task (body is required); the caller is its author",
    get: "Fetch one comment",
    update: "Change a comment (its author, or an owner or admin)",
    delete: "Remove a comment (its author, or an owner or admin)",
  },
  listDescription: "A page of the task's comments, oldest first.",
  descriptions: {
    update:
      "Only the comment's author (the same API key, or the same person) may change it, or a person who is an owner or admin: anyone else is 403 insufficient_role.",
    delete:
      "Only the comment's author (the same API key, or the same person) may remove it, or a person who is an owner or admin: anyone else is 403 insufficient_role.",
  },
  errors: { update: ["insufficient_role"], delete: ["insufficient_role"], create: ["invalid_reference"] },
  upsertFixed: "taskId",
  service: comments,
  inputs: {
    ...requestsAsIs,
    create: (body, taskId) => ({ ...body, taskId: taskId! }),
  },
});
