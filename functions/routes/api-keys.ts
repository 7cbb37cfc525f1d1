import { z } from "@hono/zod-openapi";
import { DEFAULT_RATE_LIMIT } from "../../domain/limits.ts";
import { ALL_SCOPES, SCOPES } from "../../domain/scopes.ts";
import * as apiKeys from "../../services/api-keys.ts";
import { serviceContext } from "../http/context.ts";
import { emptyEnvelope, recordEnvelope, reply, wholeListEnvelope, wholeListReply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { Name, Uuid } from "../schemas/common.ts";
import { ApiKeySchema, CreatedApiKeySchema, ScopeName } from "../schemas/settings.ts";

// The settings area (docs/people.md), its API keys: owners and admins create, list, revoke and
// replace the keys applications use. A session only, so no key can mint keys.

const IdParams = z.object({ id: Uuid });

const tag = "Settings";

export const apiKeyRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/settings/api-keys",
    operationId: "listApiKeys",
    auth: "session",
    scope: null,
    tag,
    summary: "The organisation's live API keys (owners and admins); never the keys themselves",
    errors: ["insufficient_role"],
    response: { schema: wholeListEnvelope(ApiKeySchema), description: "Live keys in creation order." },
    verb: apiKeys.listOrganisationKeys,
    async handler(c) {
      return wholeListReply(await apiKeys.listOrganisationKeys({ ctx: serviceContext(c), input: {} }), ["API key", "API keys"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/settings/api-keys",
    operationId: "createApiKey",
    auth: "session",
    scope: null,
    tag,
    summary: "Create an API key: named, with chosen scopes; the key is in this answer only",
    description: `Scopes: ${ALL_SCOPES.map((scope) => `\`${scope}\` (${SCOPES[scope]})`).join(", ")}. A .manage scope brings its .read.`,
    body: z.strictObject({
      name: Name.openapi({ description: "The application the key is for.", example: "Warehouse sync" }),
      scopes: z.array(ScopeName).min(1).max(ALL_SCOPES.length),
      rateLimit: z
        .number()
        .int()
        .min(1)
        .max(100_000)
        .optional()
        .openapi({ description: `Requests per minute; default ${DEFAULT_RATE_LIMIT}.` }),
    }),
    errors: ["insufficient_role"],
    response: { status: 201, schema: recordEnvelope(CreatedApiKeySchema), description: "The key, shown this once." },
    verb: apiKeys.createOrganisationKey,
    async handler(c, { body }) {
      return reply(
        await apiKeys.createOrganisationKey({ ctx: serviceContext(c), input: body }),
        "API key created: copy it now, it is shown once",
      );
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/settings/api-keys/{id}/revoke",
    operationId: "revokeApiKey",
    auth: "session",
    scope: null,
    tag,
    summary: "Revoke a key: refused (401) from now on, and its sockets closed",
    params: IdParams,
    errors: ["insufficient_role"],
    response: { schema: emptyEnvelope, description: "Revoked." },
    verb: apiKeys.revokeOrganisationKey,
    async handler(c, { params }) {
      await apiKeys.revokeOrganisationKey({ ctx: serviceContext(c), input: { keyId: params.id } });
      return reply(null, "API key revoked");
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/settings/api-keys/{id}/replace",
    operationId: "replaceApiKey",
    auth: "session",
    scope: null,
    tag,
    summary: "Replace a key: a new one with the same name, scopes and limit, and the old one revoked, at once",
    params: IdParams,
    errors: ["insufficient_role"],
    response: {
      status: 201,
      schema: recordEnvelope(CreatedApiKeySchema.extend({ replaces: Uuid.openapi({ description: "The revoked key's id." }) })),
      description: "The new key, shown this once.",
    },
    verb: apiKeys.replaceOrganisationKey,
    async handler(c, { params }) {
      return reply(
        await apiKeys.replaceOrganisationKey({ ctx: serviceContext(c), input: { keyId: params.id } }),
        "API key replaced: copy the new one now, it is shown once",
      );
    },
  }),
];
