import * as statements from "../db/statements/saved-views.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import type { SavedViewResource } from "../domain/saved-views.ts";
import type { Call } from "./context.ts";
import { settleCaller } from "./settle.ts";

// Saved views (docs/people.md "Saved views"): any member keeps named views of a list (its query
// string: filters, sort, columns), sees their own and those shared, and changes only their own.

export type { SavedView, ViewValues } from "../db/statements/saved-views.ts";

export async function listViews({ ctx, input }: Call<{ resource?: SavedViewResource | undefined }>) {
  const outcome = await statements.listViews(ctx.db, ctx.actor, input.resource);
  settleCaller(outcome.caller, ctx, null);
  return outcome.views;
}

const nameTaken = (name: string) => new DomainError("conflict", `you have a view of this list named ${name} already`, { field: "name" });

export async function createView({
  ctx,
  input,
}: Call<{ name: string; resource: SavedViewResource; query?: string | undefined; shared?: boolean | undefined }>) {
  let outcome;
  try {
    outcome = await statements.createView(ctx.db, ctx.actor, {
      id: uuidv7(),
      name: input.name,
      resource: input.resource,
      query: input.query ?? "",
      shared: input.shared ?? false,
    });
  } catch (error) {
    if ((error as { constraint?: string }).constraint === "saved_views_owner_name_key") throw nameTaken(input.name);
    throw error;
  }
  settleCaller(outcome.caller, ctx, null);
  return outcome.view!;
}

/** Changes one of the caller's views; a view shared by someone else is theirs to change (403). */
export async function updateView({ ctx, input }: Call<{ id: string; values: statements.ViewValues }>) {
  return changeView(ctx, input.id, input.values, input.values.name);
}

export async function deleteView({ ctx, input }: Call<{ id: string }>) {
  return changeView(ctx, input.id, null, undefined);
}

async function changeView(ctx: Call<unknown>["ctx"], id: string, values: statements.ViewValues | null, name: string | undefined) {
  let outcome;
  try {
    outcome = await statements.changeView(ctx.db, ctx.actor, id, values);
  } catch (error) {
    if ((error as { constraint?: string }).constraint === "saved_views_owner_name_key" && name) throw nameTaken(name);
    throw error;
  }
  settleCaller(outcome.caller, ctx, null);
  if (!outcome.found) throw notFound("view");
  if (!outcome.owned) throw new DomainError("insufficient_role", "only the person who saved a view changes or deletes it");
  return outcome.view!;
}
