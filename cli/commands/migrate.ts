import type { CommandSpec } from "../lib/command.ts";

interface MigrateResult {
  applied: number;
  total: number;
  database: string;
}

const migrate: CommandSpec<void, MigrateResult> = {
  name: "migrate",
  description:
    "Applies the migrations in db/migrations that the database has not had yet. Every other command\n" +
    "does this first as well, so a fresh checkout works without it.",
  options: {},
  parse: () => undefined,
  // Opening the database already migrated it; what is left is to say what happened.
  run: async ({ migrations, location }) => ({ ...migrations, database: location }),
  render: ({ applied, total, database }) =>
    applied === 0
      ? `The database is up to date (${total} migrations): ${database}\n`
      : `Applied ${applied} of ${total} migrations: ${database}\n`,
};

export default migrate;
