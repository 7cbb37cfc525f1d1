import { z } from "@hono/zod-openapi";
import { MAX_TOKEN_TTL_SECONDS } from "../../domain/crypto/realtime-token.ts";
import { DomainError } from "../../domain/errors.ts";
import { EVENT_READ_SCOPES } from "../../domain/events.ts";
import type { Scope } from "../../domain/scopes.ts";
import { listEvents } from "../../services/events.ts";
import { mintRealtimeToken } from "../../services/realtime-tokens.ts";
import { serviceContext } from "../context.ts";
import { reply } from "../envelope.ts";
import { settingsOf } from "../env.ts";
import { defineRoute } from "../registry.ts";
import { Timestamp, Uuid } from "../schemas/common.ts";
import { RealtimeInfoSchema, realtimeInfo } from "./self.ts";

const tag = "Realtime";

const EventSchema = z
  .object({
    id: Uuid,
    type: z.string().openapi({ example: "task.updated", description: "<resource>.<action>" }),
    orgId: Uuid,
    changeVersion: z.number().int().openapi({ description: "The organisation's changeVersion this change produced." }),
    occurredAt: Timestamp,
    data: z.record(z.string(), z.unknown()).openapi({
      description: "The full record after the change (for a delete, as it was).",
      example: { id: "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10", title: "Book the removal van", status: "in_progress", version: 2 },
    }),
    changes: z
      .record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }))
      .nullable()
      .openapi({ description: "On updates: each changed field with its old and new value.", example: { status: { from: "todo", to: "in_progress" } } }),
    actor: z
      .object({
        type: z.enum(["key", "user", "system"]),
        id: Uuid.nullable(),
        name: z.string(),
      })
      .openapi("Actor", {
        description:
          "Who made the change: an API key (its id and application name), a person signed in (their id and name), or opsroom itself (the CLI or the seed; id null).",
        example: { type: "key", id: "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10", name: "Warehouse sync" },
      }),
  })
  .openapi("Event");

const EventListSchema = z.object({
  success: z.literal(true),
  version: z.literal("v1"),
  message: z.string().openapi({ example: "2 events" }),
  count: z.number().int().openapi({ example: 2 }),
  changeVersion: z.number().int().openapi({ description: "The organisation's current changeVersion.", example: 42 }),
  data: z.array(EventSchema),
  nextCursor: z.string().nullable().openapi({ description: "Pass as ?after= for the next page; null when caught up." }),
});

const TokenRequestSchema = z
  .strictObject({
    scopes: z.array(z.enum(EVENT_READ_SCOPES as [Scope, ...Scope[]])).min(1).optional().openapi({
      description: "Read scopes the token carries; default: every read scope of the key.",
    }),
    ttlSeconds: z
      .number()
      .int()
      .min(30)
      .max(MAX_TOKEN_TTL_SECONDS)
      .optional()
      .openapi({ description: `Lifetime, 30 to ${MAX_TOKEN_TTL_SECONDS} seconds; default 300. A token stops opening sockets when its key is revoked.` }),
  })
  .openapi("CreateRealtimeToken");

const TokenSchema = z
  .object({
    token: z.string().openapi({ example: "eyJvcmdJZCI6IjAxOWE4YTBlLi4uIn0.c2lnbmF0dXJl", description: "Pass as query: { token }." }),
    expiresAt: Timestamp,
    organisation: Uuid,
    scopes: z.array(z.string()).openapi({ example: ["projects.read", "tasks.read"] }),
    realtime: RealtimeInfoSchema,
  })
  .openapi("RealtimeToken");

export const realtimeRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/events",
    operationId: "listEvents",
    scope: null,
    tag,
    summary: "Catch up: the events after a changeVersion that this key may see, oldest first",
    description:
      "Any valid key; the answer holds only events of resources the key can read (none for a key without a read scope). Retained 30 days. " +
      "Reconnect recipe: remember the last changeVersion you saw; on (re)connect, page through ?after=<it> until nextCursor is null, then apply live events, skipping any changeVersion already seen.",
    query: z.strictObject({
      after: z.coerce.number().int().min(0).default(0).openapi({ description: "Return events with a greater changeVersion." }),
      limit: z.coerce.number().int().min(1).max(200).default(50),
    }),
    response: { schema: EventListSchema, description: "A page of events in changeVersion order." },
    async handler(c, { query }) {
      const page = await listEvents({ ctx: serviceContext(c), input: query });
      const last = page.events.at(-1);
      const nextCursor = page.hasMore && last ? String(last.changeVersion) : null;
      const headers: Record<string, string> = {};
      if (nextCursor) {
        const next = new URL(c.req.url);
        next.searchParams.set("after", nextCursor);
        headers.Link = `<${next.toString()}>; rel="next"`;
      }
      const count = page.events.length;
      return {
        body: {
          success: true as const,
          version: "v1" as const,
          message: `${count} ${count === 1 ? "event" : "events"}`,
          count,
          changeVersion: page.changeVersion,
          data: page.events,
          nextCursor,
        },
        headers,
      };
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/realtime/tokens",
    operationId: "createRealtimeToken",
    scope: null,
    tag,
    summary: "Mint a short-lived token for joining the realtime room from a browser",
    description: "The token carries the key's organisation and a subset of its read scopes; pass it as query: { token } instead of the key.",
    body: TokenRequestSchema,
    errors: ["insufficient_scope"],
    response: { status: 201, schema: z.object({ success: z.literal(true), version: z.literal("v1"), message: z.string(), data: TokenSchema }), description: "The token." },
    async handler(c, { body }) {
      const realtime = settingsOf(c.env).realtime;
      if (!realtime) throw new DomainError("unavailable", "realtime is not configured on this deployment");
      const minted = await mintRealtimeToken({ ctx: serviceContext(c), input: { secret: realtime.secret, scopes: body.scopes, ttlSeconds: body.ttlSeconds } });
      const { orgId, ...token } = minted;
      return reply({ ...token, organisation: orgId, realtime: realtimeInfo(c.env, orgId, "token") }, "realtime token created");
    },
  }),
];
