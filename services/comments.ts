import * as statements from "../db/statements/comments.ts";
import { RULES } from "../db/statements/engine/rules.ts";
import { DomainError } from "../domain/errors.ts";
import { SETTINGS_ROLES } from "../domain/roles.ts";
import { tooManyFiles } from "./refusals.ts";
import { resourceService } from "./resource-service.ts";

export type { CommentRecord, CommentValues, NewComment } from "../db/statements/comments.ts";

const notTheAuthor = () =>
  new DomainError("insufficient_role", "only the comment's author, or an owner or admin of the organisation, may change or delete it", {
    roles: [...SETTINGS_ROLES],
  });

/** Comments on tasks: listed and written under the task, reached by their own id otherwise. */
export const comments = resourceService({
  resource: statements.commentResource,
  statements: {
    create: statements.createComment,
    update: statements.updateComment,
    remove: statements.deleteComment,
    upsert: statements.upsertComment,
  },
  rules: { [RULES.author]: notTheAuthor },
  removeRules: { [RULES.author]: notTheAuthor, ...tooManyFiles("comment") },
});
