import { z } from "@hono/zod-openapi";
import { PERSON_LIMITS } from "../../domain/personnel.ts";
import type { PersonRecord } from "../../services/personnel.ts";
import { Name, noNul, publicRecord, externalIdFields, recordFields, Uuid } from "./common.ts";

const Email = z.email().max(PERSON_LIMITS.email).refine(noNul).openapi({ example: "ada@example.com" });
const Role = z.string().trim().min(1).max(PERSON_LIMITS.role).refine(noNul, "must not contain NUL characters").nullable();

export const PersonSchema = publicRecord<PersonRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      name: z.string().openapi({ example: "Ada Lovelace" }),
      email: z.string().openapi({ example: "ada@example.com" }),
      role: z.string().nullable().openapi({ example: "Site lead" }),
      active: z.boolean().openapi({ description: "Only active people can be assigned new tasks." }),
      userId: Uuid.nullable().openapi({
        description:
          "The member (who signs in) this person is, or null. Set by PUT /v1/settings/members/{userId}/personnel and by an accepted invitation, never by a change of the person.",
      }),
    })
    .openapi("Person"),
);

// A change is a create's fields, each optional; `active` is the record's own field.
const personFields = {
  name: Name.openapi({ example: "Ada Lovelace" }),
  email: Email,
  role: Role.optional(),
  active: PersonSchema.shape.active.optional(),
};

export const CreatePersonSchema = z
  .strictObject({ ...externalIdFields.create, ...personFields, active: personFields.active.openapi({ description: "Defaults to true." }) })
  .openapi("CreatePerson");

/** PUT by external id: a create's body; the path gives the externalId. */
export const UpsertPersonSchema = CreatePersonSchema.omit({ externalId: true }).openapi("UpsertPerson");

export const UpdatePersonSchema = z
  .strictObject({ ...externalIdFields.update, ...personFields })
  .partial()
  .openapi("UpdatePerson");

export type CreatePersonInput = z.infer<typeof CreatePersonSchema>;
export type UpdatePersonInput = z.infer<typeof UpdatePersonSchema>;
