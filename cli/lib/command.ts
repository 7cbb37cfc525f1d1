import { parseArgs } from "node:util";
import type { CliDatabase } from "./database.ts";
import { UsageError } from "./errors.ts";

export interface OptionSpec {
  type: "string" | "boolean";
  /** Placeholder shown in the usage line, e.g. "ID". */
  placeholder?: string;
  description: string;
  required?: boolean;
}

export interface ParsedArgs {
  positionals: string[];
  /** The value of a required option (its presence is checked before `parse` runs). */
  required(name: string): string;
  optional(name: string): string | undefined;
  /** Whether a boolean option was given. */
  flag(name: string): boolean;
}

/** One `opsroom` command: declared options, a pure parse step, the work, and how to show the result. */
export interface CommandSpec<Input, Result> {
  /** "key create": the words that select the command. */
  name: string;
  description: string;
  positionals?: { name: string; description: string }[];
  options: Record<string, OptionSpec>;
  /** Turns the command line into the command's input; throws UsageError. Runs before the database opens. */
  parse(args: ParsedArgs): Input;
  run(database: CliDatabase, input: Input): Promise<Result>;
  /** The result for people; `--json` prints the result itself. */
  render(result: Result): string;
}

/**
 * A command that talks to a running API instead of the database and prints as it goes until
 * stopped (`listen`): no database is opened and there is no single result to render.
 */
export interface StreamCommandSpec<Input> extends Omit<CommandSpec<Input, never>, "run" | "render"> {
  /** Runs until `signal` aborts (Ctrl-C) or it fails. `json`: machine-readable lines on stdout. */
  stream(input: Input, options: { json: boolean; signal: AbortSignal }): Promise<void>;
  /** The help's closing line: where the command's data comes from. */
  source: string;
  /** What --json does for this command, in its help. */
  jsonOutput: string;
}

export type AnyCommandSpec = CommandSpec<unknown, unknown> | StreamCommandSpec<unknown>;

const COMMON_OPTIONS: Record<string, OptionSpec> = {
  json: { type: "boolean", description: "print the result as one JSON document" },
  help: { type: "boolean", description: "show this help" },
};

export interface CommandLine {
  args: ParsedArgs;
  json: boolean;
  help: boolean;
}

export function parseCommandLine(spec: AnyCommandSpec, argv: string[]): CommandLine {
  const options = { ...spec.options, ...COMMON_OPTIONS };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.entries(options).map(([name, option]) => [name, name === "help" ? { type: "boolean", short: "h" } : { type: option.type }]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(describeParseError(error as NodeJS.ErrnoException));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const help = values.help === true;
  const expected = spec.positionals ?? [];
  if (!help) {
    const extra = parsed.positionals[expected.length];
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const missingPositional = expected[parsed.positionals.length];
    if (missingPositional) throw new UsageError(`${missingPositional.name} is required`);
    for (const [name, option] of Object.entries(spec.options)) {
      if (option.required && values[name] === undefined) throw new UsageError(`--${name} is required`);
    }
  }
  const stringValue = (name: string) => {
    const value = values[name];
    if (typeof value === "string" && value.trim() === "") throw new UsageError(`--${name} must not be empty`);
    return typeof value === "string" ? value : undefined;
  };
  return {
    help,
    json: values.json === true,
    args: {
      positionals: parsed.positionals,
      required: (name) => stringValue(name)!,
      optional: stringValue,
      flag: (name) => values[name] === true,
    },
  };
}

function describeParseError(error: NodeJS.ErrnoException): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1];
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option ?? error.message}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (option && /argument missing/.test(error.message)) return `${option} needs a value`;
      // parseArgs will not take a value that starts with "-" after a space.
      if (option && /ambiguous/.test(error.message)) return `${option} needs a value (for one starting with "-", write ${option}=VALUE)`;
      return `${option ?? "an option"} does not take a value`;
    default:
      return error.message.split("\n")[0]!;
  }
}

export function usageLine(spec: AnyCommandSpec): string {
  const parts = [`opsroom ${spec.name}`];
  for (const positional of spec.positionals ?? []) parts.push(positional.name);
  for (const [name, option] of Object.entries(spec.options)) {
    const flag = option.placeholder ? `--${name} ${option.placeholder}` : `--${name}`;
    parts.push(option.required ? flag : `[${flag}]`);
  }
  return parts.join(" ") + " [--json]";
}

export function helpText(spec: AnyCommandSpec): string {
  const rows: [string, string][] = [
    ...(spec.positionals ?? []).map((p): [string, string] => [p.name, p.description]),
    ...Object.entries(spec.options).map(([name, o]): [string, string] => [
      `--${name}${o.placeholder ? ` ${o.placeholder}` : ""}`,
      o.description,
    ]),
    ["--json", "jsonOutput" in spec ? spec.jsonOutput : COMMON_OPTIONS.json!.description],
    ["-h, --help", COMMON_OPTIONS.help!.description],
  ];
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    `Usage: ${usageLine(spec)}`,
    "",
    spec.description,
    "",
    "Options:",
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
    "",
    "source" in spec
      ? spec.source
      : "Database: DATABASE_URL when set; otherwise the embedded database in .data/pglite (through npm run dev when it is running).",
    "",
  ].join("\n");
}
