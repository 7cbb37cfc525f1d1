import { z } from "@hono/zod-openapi";
import { FINANCIAL_ENTRY_KINDS } from "../../domain/records.ts";
import type { FinancialEntryRecord } from "../../services/financial-entries.ts";
import { DateString, Description, Uuid, noNul, publicRecord, externalIdFields, recordFields } from "./common.ts";

// Money is a decimal string, never a JSON number: JSON.parse turns 0.1 into a binary float before
// any code sees it, so a number can arrive already wrong. A string reaches Postgres exactly.
const DECIMAL = /^-?(0|[1-9]\d{0,12})(\.\d{1,2})?$/;
const ZERO = /^-?0(\.0{1,2})?$/;

const Amount = z
  .string({ error: 'must be a decimal string such as "1234.50" (JSON numbers are refused: they may already have lost precision)' })
  .max(17)
  .regex(DECIMAL, 'must be a decimal with at most 13 digits before the point and 2 after, such as "1234.50"')
  .refine((amount) => !ZERO.test(amount), "must not be 0")
  .openapi({
    description: "Exact decimal as a string, at most 2 decimal places. Positive, except an adjustment, which is signed.",
    example: "1234.50",
  });

export const Currency = z
  .string()
  .max(3)
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code: three capital letters, such as EUR")
  .openapi({ description: "ISO 4217 currency code.", example: "EUR" });

const Reference = z.string().trim().min(1).max(200).refine(noNul, "must not contain NUL characters").nullable();

/** Answered money: a decimal string with exactly two decimals. */
const Money = (example: string) => z.string().openapi({ description: "Exact decimal, always 2 decimals.", example });

export const FinancialEntrySchema = publicRecord<FinancialEntryRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      projectId: Uuid,
      kind: z.enum(FINANCIAL_ENTRY_KINDS),
      amount: Money("1234.50"),
      currency: z.string().openapi({ example: "EUR" }),
      date: DateString,
      description: z.string().nullable(),
      reference: z.string().nullable().openapi({ example: "INV-2026-0042" }),
    })
    .openapi("FinancialEntry"),
);

const signFitsKind = (entry: { kind?: string | undefined; amount?: string | undefined }) =>
  entry.kind === undefined || entry.amount === undefined || entry.kind === "adjustment" || !entry.amount.startsWith("-");
const SIGN_RULE = { message: "only an adjustment may be negative", path: ["amount"] };

// The inputs take the record's own fields where they are the same (its project, kind and date);
// a change is a create's fields but projectId (an entry stays with its project), each optional.
const { projectId, kind, date } = FinancialEntrySchema.shape;

const newEntry = {
  projectId,
  kind,
  amount: Amount,
  currency: Currency,
  date,
  description: Description.optional(),
  reference: Reference.optional(),
};

export const CreateFinancialEntrySchema = z
  .strictObject({ ...externalIdFields.create, ...newEntry })
  .refine(signFitsKind, SIGN_RULE)
  .openapi("CreateFinancialEntry");

/** PUT by external id: a create's body; the path gives the externalId. */
export const UpsertFinancialEntrySchema = z.strictObject(newEntry).refine(signFitsKind, SIGN_RULE).openapi("UpsertFinancialEntry");

// A patch with only kind or only amount is checked against the stored other half by the update statement.
export const UpdateFinancialEntrySchema = z
  .strictObject({ ...externalIdFields.update, ...newEntry })
  .omit({ projectId: true })
  .partial()
  .refine(signFitsKind, SIGN_RULE)
  .openapi("UpdateFinancialEntry");

export const ProjectFinancialsQuery = z.strictObject({
  currency: Currency.optional().openapi({
    description: "Add up the entries in this currency; needed when the project's entries use several.",
  }),
});

export const ProjectFinancialsSchema = z
  .object({
    projectId: Uuid,
    currency: z
      .string()
      .nullable()
      .openapi({ description: "The currency the totals are in; null when the project has no entries.", example: "EUR" }),
    budget: Money("25000.00").openapi({ description: "The project's budget." }),
    costs: Money("9000.00").openapi({ description: "Sum of cost entries." }),
    adjustments: Money("-250.00").openapi({ description: "Sum of adjustment entries (signed corrections to costs)." }),
    invoiced: Money("12000.00").openapi({ description: "Sum of invoice entries." }),
    paid: Money("8000.00").openapi({ description: "Sum of payment entries." }),
    remaining: Money("16250.00").openapi({ description: "budget - (costs + adjustments); negative when over budget." }),
  })
  .openapi("ProjectFinancials");

export type CreateFinancialEntryInput = z.infer<typeof CreateFinancialEntrySchema>;
export type UpdateFinancialEntryInput = z.infer<typeof UpdateFinancialEntrySchema>;
export type ProjectFinancials = z.infer<typeof ProjectFinancialsSchema>;
