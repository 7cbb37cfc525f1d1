import { helpText, parseCommandLine, type CommandSpec } from "./command.ts";
import { openCliDatabase } from "./database.ts";

const EXIT_INTERRUPTED = 130;

/** Parses and validates the command line, then runs the command against a migrated database. */
export async function runCommand(spec: CommandSpec<unknown, unknown>, argv: string[]): Promise<void> {
  const { args, json, help } = parseCommandLine(spec, argv);
  if (help) {
    process.stdout.write(helpText(spec));
    return;
  }
  // Every input error is found here, before anything is opened or written.
  const input = spec.parse(args);
  const database = await openCliDatabase();
  // Ctrl-C while the embedded database is open: close it properly rather than leave it mid-write.
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
    void database.close().finally(() => process.exit(EXIT_INTERRUPTED));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  let result: unknown;
  try {
    result = await spec.run(database, input);
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
    await database.close();
    // The command failed because its database closed under it: expected after Ctrl-C, not reported.
    if (interrupted) process.exit(EXIT_INTERRUPTED);
  }
  process.stdout.write(json ? JSON.stringify(result, null, 2) + "\n" : spec.render(result));
}
