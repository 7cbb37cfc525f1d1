import { z } from "@hono/zod-openapi";
import { getOrganisation } from "../../services/organisation.ts";
import { serviceContext } from "../http/context.ts";
import { recordEnvelope, reply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
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
    verb: getOrganisation,
    async handler(c) {
      const organisation = await getOrganisation({ ctx: serviceContext(c), input: {} });
      return reply(organisation, organisation.name);
    },
  }),
];
