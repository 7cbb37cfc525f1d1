import { seedDemo, type SeedResult } from "../../services/seed/seed.ts";
import { asCliError } from "../lib/api-errors.ts";
import type { CommandSpec } from "../lib/command.ts";
import { cliRooms } from "../lib/context.ts";
import { createProgressBar } from "../lib/progress-bar.ts";
import { parseWholeNumber } from "../lib/validate.ts";

const MAX_TASKS = 100_000;

const seed: CommandSpec<{ tasks: number | undefined }, SeedResult> = {
  name: "seed",
  description:
    "Creates a demo organisation: a small building-services company with people, projects,\n" +
    "milestones and tasks in every state, and an API key holding every scope (printed once).\n" +
    "Records are written through the API's services, so each one moves changeVersion and emits an event.",
  options: {
    tasks: { type: "string", placeholder: "N", description: `how many tasks to create (default about 20, at most ${MAX_TASKS})` },
  },
  parse(args) {
    const tasks = args.optional("tasks");
    return { tasks: tasks === undefined ? undefined : parseWholeNumber(tasks, "--tasks", { min: 0, max: MAX_TASKS }) };
  },
  async run({ db }, { tasks }) {
    const bar = createProgressBar("seeding");
    try {
      return await seedDemo(
        { db, rooms: await cliRooms() },
        { ...(tasks === undefined ? {} : { tasks }), onProgress: ({ done, total }) => bar.update(done, total) },
      );
    } catch (error) {
      throw asCliError(error);
    } finally {
      bar.finish();
    }
  },
  render: ({ organisation, key, counts }) =>
    [
      `Created demo organisation "${organisation.name}": ${organisation.id}`,
      `  ${counts.personnel} people, ${counts.projects} projects, ${counts.milestones} milestones, ${counts.tasks} tasks, ${counts.risks} risks, ${counts.issues} issues, ${counts.financialEntries} financial entries`,
      "",
      "API key with every scope (shown once):",
      `  ${key.key}`,
      "",
      `Try it: curl -H "Authorization: Bearer ${key.key}" http://127.0.0.1:8787/v1/tasks`,
      "",
    ].join("\n"),
};

export default seed;
