import { z } from "@hono/zod-openapi";
import { LABEL_COLOUR_PATTERN } from "../../domain/records.ts";
import type { LabelRecord } from "../../services/labels.ts";
import { Description, publicRecord, externalIdFields, recordFields, noNul } from "./common.ts";

const LabelName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine(noNul, "must not contain NUL characters")
  .openapi({ description: "Unique in the organisation, whatever the letter case.", example: "Fragile" });
const Colour = z
  .string()
  .max(7)
  .regex(new RegExp(LABEL_COLOUR_PATTERN), "must be #rrggbb")
  .openapi({ description: "#rrggbb.", example: "#d73a4a" });

export const LabelSchema = publicRecord<LabelRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      name: z.string().openapi({ example: "Fragile" }),
      colour: z.string().openapi({ example: "#d73a4a" }),
      description: z.string().nullable(),
    })
    .openapi("Label"),
);

const newLabel = { name: LabelName, colour: Colour, description: Description.optional() };

export const CreateLabelSchema = z.strictObject({ ...externalIdFields.create, ...newLabel }).openapi("CreateLabel");

/** PUT by external id: a create's body; the path gives the externalId. */
export const UpsertLabelSchema = z.strictObject(newLabel).openapi("UpsertLabel");

export const UpdateLabelSchema = z
  .strictObject({ ...externalIdFields.update, ...newLabel })
  .partial()
  .openapi("UpdateLabel");
