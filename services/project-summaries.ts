import { getOrganisationOverview, getProjectSummary } from "../db/statements/project-summaries.ts";
import { notFound } from "../domain/errors.ts";
import type { PageEnd, PageRequest } from "../domain/paging.ts";
import type { Call } from "./context.ts";
import { settleCaller } from "./settle.ts";

// What the console's charts are drawn from: a project's counts and sums, and every project's
// health at a glance (db/statements/project-summaries.ts says what each section counts).

/** A project's tasks, milestones, risks, issues and money, counted and added up. */
export async function projectSummary({ ctx, input }: Call<{ projectId: string }>) {
  const outcome = await getProjectSummary(ctx.db, ctx.actor, input.projectId);
  settleCaller(outcome.caller, ctx, "projects.read");
  if (!outcome.found) throw notFound("project");
  return outcome.found;
}

/** A page of the organisation's projects, each with its schedule, money and risk health. */
export async function organisationOverview({ ctx, input }: Call<{ page: PageRequest }>) {
  const outcome = await getOrganisationOverview(ctx.db, ctx.actor, input.page);
  settleCaller(outcome.caller, ctx, "projects.read");
  const hasMore = outcome.projects.length > input.page.limit;
  const projects = outcome.projects.slice(0, input.page.limit);
  const last = projects.at(-1);
  const end: PageEnd | null = hasMore && last ? { values: [last.createdAt], id: last.id } : null;
  return { projects: projects.map((p) => p.summary), end };
}
