import { helpText, parseCommandLine, type AnyCommandSpec, type StreamCommandSpec } from "./command.ts";
import { openCliDatabase } from "./database.ts";

const EXIT_INTERRUPTED = 130;

/** Parses and validates the command line, then runs the command against a migrated database. */
export async function runCommand(spec: AnyCommandSpec, argv: string[]): Promise<void> {
  const { args, json, help } = parseCommandLine(spec, argv);
  if (help) {
    process.stdout.write(helpText(spec));
    return;
  }
  // Every input error is found here, before anything is opened or written.
  const input = spec.parse(args);
  if ("stream" in spec) return runStream(spec, input, json);
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

/** A streaming command runs until Ctrl-C (or SIGTERM), which ends it cleanly with exit code 0. */
async function runStream(spec: StreamCommandSpec<unknown>, input: unknown, json: boolean): Promise<void> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  try {
    await spec.stream(input, { json, signal: stop.signal });
  } finally {
    process.off("SIGINT", abort);
    process.off("SIGTERM", abort);
  }
  // Stopped as asked: sockets still closing politely (a WebSocket close handshake, HTTP keep-alive)
  // would otherwise hold the process for seconds after "Stopped." (stdout to a pipe is synchronous on Linux).
  process.exit(0);
}
