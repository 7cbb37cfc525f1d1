import { DomainError } from "./errors.ts";

// What a new person's fields may be, checked where no request schema runs (the CLI's `personnel
// add`): the limits of POST /v1/personnel's body (functions/schemas/personnel.ts), each refusal
// naming its field as the API's invalid_field does.

/** The longest name, email address and role a person may have (the API's body schema says the same). */
export const PERSON_LIMITS = { name: 200, email: 320, role: 200 } as const;

/** An address with one @, something before it, and a dotted domain after it, with no space. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function text(field: keyof typeof PERSON_LIMITS, value: string): string {
  const trimmed = field === "email" ? value : value.trim();
  if (trimmed.length === 0) throw new DomainError("invalid_field", `${field} must not be empty`, { field });
  if (trimmed.length > PERSON_LIMITS[field])
    throw new DomainError("invalid_field", `${field} must be at most ${PERSON_LIMITS[field]} characters`, { field });
  if (trimmed.includes("\u0000")) throw new DomainError("invalid_field", `${field} must not contain NUL characters`, { field });
  return trimmed;
}

/** A new person's name, email and role, trimmed and checked: invalid_field naming the first that is not. */
export function checkedPerson(fields: { name: string; email: string; role?: string | undefined }) {
  const email = text("email", fields.email);
  if (!EMAIL.test(email)) throw new DomainError("invalid_field", "email must be an email address", { field: "email" });
  return {
    name: text("name", fields.name),
    email,
    ...(fields.role === undefined ? {} : { role: text("role", fields.role) }),
  };
}
