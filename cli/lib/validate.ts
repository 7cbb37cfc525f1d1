import { UUID_PATTERN } from "../../domain/ids.ts";
import { UsageError } from "./errors.ts";

export function parseUuid(value: string, label: string): string {
  if (!UUID_PATTERN.test(value)) throw new UsageError(`${label} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

export function parseWholeNumber(value: string, label: string, range: { min: number; max: number }): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < range.min || number > range.max) {
    const bound = range.min === 1 ? "a positive whole number" : `a whole number from ${range.min}`;
    throw new UsageError(`${label} must be ${bound} up to ${range.max}, got "${value}"`);
  }
  return number;
}
