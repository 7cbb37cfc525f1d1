import { z } from "@hono/zod-openapi";
import { listEvents } from "../../db/queries/events.ts";
import { describeCaller } from "../../db/queries/organisation.ts";
import { ApiError } from "../errors.ts";
import { EVENT_SCOPES } from "../lib/events.ts";
import { signRealtimeToken } from "../lib/realtime-token.ts";
import { ALL_SCOPES, type Scope } from "../lib/scopes.ts";
import { defineRoute } from "../registry.ts";
import { Timestamp, Uuid } from "../schemas/common.ts";
import { RealtimeInfoSchema, realtimeInfo } from "./self.ts";

const tag = "Realtime";
const READ_SCOPES = [...new Set(Object.values(EVENT_SCOPES))];

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
    scopes: z.array(z.enum(READ_SCOPES as [Scope, ...Scope[]])).min(1).optional().openapi({
      description: "Read scopes the token carries; default: every read scope of the key.",
    }),
    ttlSeconds: z.number().int().min(30).max(3600).optional().openapi({ description: "Lifetime, 30 to 3600 seconds; default 300." }),
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
      "Needs any read scope; the answer holds only events of resources the key can read. Retained 30 days. " +
      "Reconnect recipe: remember the last changeVersion you saw; on (re)connect, page through ?after=<it> until nextCursor is null, then apply live events, skipping any changeVersion already seen.",
    query: z.strictObject({
      after: z.coerce.number().int().min(0).default(0).openapi({ description: "Return events with a greater changeVersion." }),
      limit: z.coerce.number().int().min(1).max(200).default(50),
    }),
    response: { schema: EventListSchema, description: "A page of events in changeVersion order." },
    async handler(c, { query }) {
      const page = await listEvents(c.var.db, c.var.actor, query);
      const last = page.events.at(-1);
      const nextCursor = page.hasMore && last ? String(last.changeVersion) : null;
      if (nextCursor) {
        const next = new URL(c.req.url);
        next.searchParams.set("after", nextCursor);
        c.header("Link", `<${next.toString()}>; rel="next"`);
      }
      const count = page.events.length;
      return c.json({
        success: true,
        version: "v1",
        message: `${count} ${count === 1 ? "event" : "events"}`,
        count,
        changeVersion: page.changeVersion,
        data: page.events,
        nextCursor,
      });
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
      const secret = c.env.REALTIME_SECRET;
      if (!secret) throw new ApiError("unavailable", "realtime is not configured on this deployment");
      const caller = await describeCaller(c.var.db, c.var.actor);
      const readable = caller.scopes.filter((scope) => READ_SCOPES.includes(scope));
      const missing = body.scopes?.find((scope) => !caller.scopes.includes(scope));
      if (missing) throw new ApiError("insufficient_scope", `the key does not hold ${missing}`, { scope: missing, field: "scopes" });
      const scopes = ALL_SCOPES.filter((scope) => (body.scopes ?? readable).includes(scope));
      if (scopes.length === 0) {
        throw new ApiError("insufficient_scope", "a realtime token needs a key holding at least one read scope", { scope: READ_SCOPES.join(" | ") });
      }
      const exp = Math.floor(Date.now() / 1000) + (body.ttlSeconds ?? 300);
      const token = await signRealtimeToken(secret, { orgId: caller.orgId, scopes, exp });
      return c.json(
        {
          success: true,
          version: "v1",
          message: "realtime token created",
          data: {
            token,
            expiresAt: new Date(exp * 1000).toISOString(),
            organisation: caller.orgId,
            scopes,
            realtime: realtimeInfo(c.env, caller.orgId, "token"),
          },
        },
        201,
      );
    },
  }),
];
