/** The command line itself is wrong (unknown command or flag, missing or malformed value): exit 2. */
export class UsageError extends Error {}

/** The command was understood but cannot be done (unknown organisation, duplicate email, ...): exit 1. */
export class CommandError extends Error {}

const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function exitCodeOf(error: unknown): number {
  return error instanceof UsageError ? EXIT_USAGE : EXIT_FAILURE;
}

/** Node's system errors (ECONNREFUSED, EACCES, ...) carry a code; everything else is unexpected. */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}
