import { z } from "@hono/zod-openapi";
import { MAX_VIEW_QUERY, SAVED_VIEW_RESOURCES } from "../../domain/saved-views.ts";
import type { Assert, Equal } from "../../domain/type-equality.ts";
import type { SavedView } from "../../services/saved-views.ts";
import { noNul, Timestamp, Uuid } from "./common.ts";

// The wire shapes of saved views (docs/people.md "Saved views"), answered by functions/routes/saved-views.ts.

export const ViewResource = z.enum(SAVED_VIEW_RESOURCES).openapi({ description: "The list the view is of, by its path (/v1/<resource>)." });
const ViewName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine(noNul, "must not contain NUL characters")
  .openapi({ example: "My overdue tasks" });
const ViewQuery = z.string().max(MAX_VIEW_QUERY).refine(noNul, "must not contain NUL characters").openapi({
  description: "The list's query string as the console keeps it in its URL, without the leading ?: filters, sort, columns.",
  example: "status=todo,in_progress&assigneeId=me&sort=dueDate&columns=title,status,dueDate",
});
const Shared = z.boolean().openapi({ description: "Shown to every member of the organisation (only its owner changes it)." });

export const SavedViewSchema = z
  .object({
    id: Uuid,
    name: z.string(),
    resource: ViewResource,
    query: z.string(),
    shared: z.boolean(),
    owner: z.object({ id: Uuid, name: z.string() }).nullable().openapi({ description: "Who saved it." }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("SavedView");

type _SchemaIsTheStatement = Assert<Equal<z.infer<typeof SavedViewSchema>, SavedView>>;

export const CreateViewSchema = z
  .strictObject({ name: ViewName, resource: ViewResource, query: ViewQuery.optional(), shared: Shared.optional() })
  .openapi("CreateView");

export const UpdateViewSchema = z.strictObject({ name: ViewName, query: ViewQuery, shared: Shared }).partial().openapi("UpdateView");

export const ViewListQuery = z.strictObject({ resource: ViewResource.optional() });
