import { z } from "@hono/zod-openapi";
import { RISK_LEVELS, RISK_STATUSES } from "../../domain/records.ts";
import type { RiskRecord } from "../../services/risks.ts";
import { Description, Name, Uuid, publicRecord, externalIdFields, recordFields } from "./common.ts";

const Level = z.enum(RISK_LEVELS).nullable();

export const RiskSchema = publicRecord<RiskRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      projectId: Uuid,
      title: z.string().openapi({ example: "Removal van unavailable on moving day" }),
      description: z.string().nullable(),
      probability: Level.openapi({ description: "Null until assessed." }),
      impact: Level.openapi({ description: "Null until assessed." }),
      status: z.enum(RISK_STATUSES),
      ownerId: Uuid.nullable(),
      mitigation: z.string().nullable(),
    })
    .openapi("Risk"),
);

// The inputs take the record's own fields where they are the same (its ids, levels and status);
// a change is a create's fields but projectId (a risk stays with its project), each optional.
const { projectId, probability, impact, status, ownerId } = RiskSchema.shape;

const riskFields = {
  projectId,
  title: Name.openapi({ example: "Removal van unavailable on moving day" }),
  description: Description.optional(),
  probability: probability.optional(),
  impact: impact.optional(),
  status: status.optional(),
  ownerId: ownerId.optional().openapi({ description: "An active person of the organisation." }),
  mitigation: Description.optional(),
};

export const CreateRiskSchema = z
  .strictObject({ ...externalIdFields.create, ...riskFields, status: status.optional().openapi({ description: "Defaults to open." }) })
  .openapi("CreateRisk");

/** PUT by external id: a create's body; the path gives the externalId. */
export const UpsertRiskSchema = CreateRiskSchema.omit({ externalId: true }).openapi("UpsertRisk");

export const UpdateRiskSchema = z
  .strictObject({ ...externalIdFields.update, ...riskFields })
  .omit({ projectId: true })
  .partial()
  .openapi("UpdateRisk");

export type CreateRiskInput = z.infer<typeof CreateRiskSchema>;
export type UpdateRiskInput = z.infer<typeof UpdateRiskSchema>;
