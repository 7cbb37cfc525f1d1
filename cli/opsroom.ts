import { COMMANDS, type CommandEntry } from "./commands/index.ts";
import { CommandError, EXIT_USAGE, exitCodeOf, UsageError } from "./lib/errors.ts";
import { runCommand } from "./lib/run-command.ts";

const HELP_FLAGS = new Set(["--help", "-h", "help"]);

function overview(entries: CommandEntry[]): string {
  const width = Math.max(...entries.map((c) => c.name.length)) + 2;
  return [
    "Usage: opsroom <command> [options] [--json]",
    "",
    "Commands:",
    ...entries.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    'Run "opsroom <command> --help" for the options of a command.',
    "",
  ].join("\n");
}

async function main(argv: string[]): Promise<void> {
  const [first, second] = argv;
  if (first === undefined) {
    process.stderr.write(overview(COMMANDS));
    process.exitCode = EXIT_USAGE;
    return;
  }
  if (HELP_FLAGS.has(first)) {
    process.stdout.write(overview(COMMANDS));
    return;
  }
  const entry = COMMANDS.find((c) => c.name === `${first} ${second}`) ?? COMMANDS.find((c) => c.name === first);
  if (entry) {
    const module = await entry.load();
    await runCommand(module.default, argv.slice(entry.name.split(" ").length));
    return;
  }
  const group = COMMANDS.filter((c) => c.name.startsWith(`${first} `));
  if (group.length === 0) throw new UsageError(`unknown command "${first}"`);
  if (second === undefined || HELP_FLAGS.has(second)) {
    process.stdout.write(overview(group));
    return;
  }
  const choices = group.map((c) => c.name.split(" ")[1]).join(", ");
  throw new UsageError(`unknown command "${first} ${second}" (${first} commands: ${choices})`);
}

function report(error: unknown, argv: string[]): void {
  if (error instanceof UsageError) {
    const command = COMMANDS.find((c) => argv.join(" ").startsWith(c.name))?.name;
    const hint = command ? `opsroom ${command} --help` : "opsroom --help";
    process.stderr.write(`opsroom: ${error.message} (see ${hint})\n`);
  } else if (error instanceof CommandError) {
    process.stderr.write(`opsroom: ${error.message}\n`);
  } else {
    // Not an expected failure: keep the stack, it is what a bug report needs.
    process.stderr.write(`opsroom: unexpected error: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exitCode = exitCodeOf(error);
}

const argv = process.argv.slice(2);
await main(argv).catch((error: unknown) => report(error, argv));
