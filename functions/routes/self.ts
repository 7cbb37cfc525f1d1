import { z } from "@hono/zod-openapi";
import { SCOPES } from "../../domain/scopes.ts";
import { describeSelf } from "../../services/organisation.ts";
import { settingsOf, type Bindings } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { envelope } from "../http/envelope.ts";
import { defineRoute, operationsOf } from "../http/registry.ts";
import { Uuid } from "../schemas/common.ts";

const ORG_EXAMPLE = "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10";

export const RealtimeInfoSchema = z.object({ namespace: z.literal("/v1"), how: z.string(), url: z.string() }).openapi({
  description: "Where and how to join the organisation's realtime room.",
  example: {
    namespace: "/v1",
    how: `new PartySocket({ host: "127.0.0.1:1999", party: "v1", room: "${ORG_EXAMPLE}", query: { apiKey: "<API_KEY>" } })`,
    url: `ws://127.0.0.1:1999/parties/v1/${ORG_EXAMPLE}`,
  },
});

const SelfDescriptionSchema = envelope(
  {
    organisation: Uuid.openapi({ description: "The organisation the key belongs to." }),
    application: z.string().openapi({ description: "The name given to the key's application.", example: "warehouse-sync" }),
    scopes: z.array(z.object({ scope: z.string(), label: z.string() })).openapi({
      description: "Exactly the scopes the key holds, implied .read scopes included.",
      example: [
        { scope: "tasks.read", label: "Read tasks" },
        { scope: "tasks.manage", label: "Create and change tasks" },
      ],
    }),
    realtime: RealtimeInfoSchema,
    attachments: z.object({ usedBytes: z.number().int(), quotaBytes: z.number().int() }).openapi({
      description: "What the organisation keeps in attached files, and may keep, in bytes (docs/attachments.md).",
      example: { usedBytes: 482113, quotaBytes: 10737418240 },
    }),
    operations: z.array(z.object({ method: z.string(), path: z.string(), scope: z.string().nullable(), summary: z.string() })).openapi({
      description: "Every operation of the API and the scope it needs (null: any valid key).",
      example: [{ method: "GET", path: "/v1/tasks", scope: "tasks.read", summary: "List tasks, filtered and paged" }],
    }),
  },
  z.string().openapi({ example: "API key of warehouse-sync" }),
).openapi("SelfDescription");

/**
 * Where and how to join the organisation's realtime room. Without realtime configured, the room's
 * address is unknown: `url` says so rather than point at an address the deployment never had.
 */
export function realtimeInfo(env: Bindings, orgId: string, credential: "apiKey" | "token" = "apiKey") {
  const realtime = settingsOf(env).realtime;
  if (!realtime) return { namespace: "/v1" as const, how: "realtime is not configured on this deployment", url: "" };
  const base = new URL(realtime.url);
  const socketUrl = `${base.protocol === "https:" ? "wss:" : "ws:"}//${base.host}/parties/v1/${orgId}`;
  return {
    namespace: "/v1" as const,
    how: `new PartySocket({ host: "${base.host}", party: "v1", room: "${orgId}", query: { ${credential}: "<${credential === "apiKey" ? "API_KEY" : "TOKEN"}>" } })`,
    url: socketUrl,
  };
}

export const selfRoutes = [
  defineRoute({
    method: "get",
    path: "/v1",
    operationId: "describeKey",
    scope: null,
    tag: "Organisation",
    summary: "Describe this API key: its organisation, application, scopes, changeVersion, realtime and every operation",
    response: { schema: SelfDescriptionSchema, description: "The self-description record." },
    verb: describeSelf,
    async handler(c) {
      const ctx = serviceContext(c);
      const caller = await describeSelf({ ctx, input: {} });
      return {
        body: {
          success: true as const,
          version: "v1" as const,
          message: caller.keyId ? `API key of ${caller.application}` : `signed in as ${caller.application}`,
          organisation: caller.orgId,
          application: caller.application,
          scopes: caller.scopes.map((scope) => ({ scope, label: SCOPES[scope] })),
          realtime: realtimeInfo(c.env, caller.orgId),
          attachments: caller.attachments,
          operations: operationsOf(await c.get("registry")(), caller.keyId ? "key" : "person"),
        },
      };
    },
  }),
];
