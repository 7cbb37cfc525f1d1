import { z } from "@hono/zod-openapi";
import { getOrganisation } from "../../db/queries/organisation.ts";
import { recordEnvelope } from "../envelope.ts";
import { defineRoute } from "../registry.ts";
import { Timestamp, Uuid } from "../schemas/common.ts";

const OrganisationSchema = z
  .object({
    id: Uuid,
    name: z.string().openapi({ example: "Acme Logistics" }),
    changeVersion: z.number().int(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("Organisation");

export const organisationRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/organisation",
    operationId: "getOrganisation",
    scope: "organisation.read",
    tag: "Organisation",
    summary: "Fetch the key's organisation",
    response: { schema: recordEnvelope(OrganisationSchema), description: "The organisation." },
    async handler(c) {
      const organisation = await getOrganisation(c.var.db, c.var.actor);
      return c.json({ success: true, version: "v1", message: organisation.name, data: organisation });
    },
  }),
];
