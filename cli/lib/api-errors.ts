import { DomainError } from "../../domain/errors.ts";
import { CommandError, UsageError } from "./errors.ts";

// Refusals about the shape of a value are the command line's fault (exit 2); the rest, such as a
// duplicate email, are failures of a well-formed command (exit 1).
const INPUT_ERROR_CODES = new Set(["missing_field", "invalid_field", "unknown_field"]);

/** The same refusal the API would give, as the CLI's error; anything else passes through unchanged. */
export function asCliError(error: unknown): unknown {
  if (!(error instanceof DomainError)) return error;
  return INPUT_ERROR_CODES.has(error.code) ? new UsageError(error.message) : new CommandError(error.message);
}
