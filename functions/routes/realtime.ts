import { z } from "@hono/zod-openapi";
import { MAX_TOKEN_TTL_SECONDS } from "../../domain/crypto/realtime-token.ts";
import { DomainError } from "../../domain/errors.ts";
import { EVENT_READ_SCOPES } from "../../domain/events.ts";
import type { Scope } from "../../domain/scopes.ts";
import { listEvents } from "../../services/events.ts";
import { mintRealtimeToken } from "../../services/realtime-tokens.ts";
import { settingsOf } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { envelope, eventsReply, recordEnvelope, reply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { Timestamp, Uuid } from "../schemas/common.ts";
import { EventSchema } from "../schemas/event-types.ts";
import { FeedFilterQuery, feedFilterOf } from "../schemas/events.ts";
import { RealtimeInfoSchema, realtimeInfo } from "./self.ts";

const tag = "Realtime";

const EventListSchema = envelope(
  {
    count: z.number().int().openapi({ example: 2 }),
    data: z.array(EventSchema),
    nextCursor: z.string().nullable().openapi({ description: "Pass as ?after= for the next page; null when caught up." }),
  },
  z.string().openapi({ example: "2 events" }),
);

const TokenRequestSchema = z
  .strictObject({
    scopes: z
      .array(z.enum(EVENT_READ_SCOPES as [Scope, ...Scope[]]))
      .min(1)
      .max(EVENT_READ_SCOPES.length)
      .optional()
      .openapi({
        description: "Read scopes the token carries; default: every read scope of the key.",
      }),
    ttlSeconds: z
      .number()
      .int()
      .min(30)
      .max(MAX_TOKEN_TTL_SECONDS)
      .optional()
      .openapi({
        description: `Lifetime, 30 to ${MAX_TOKEN_TTL_SECONDS} seconds; default 300. A token stops opening sockets when its key is revoked (a person's: their session ends; an OAuth application's: its grant is revoked or it is uninstalled).`,
      }),
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
      "Any valid key; the answer holds only events of resources the key can read (none for a key without a read scope), narrowed by the filter (types, projectId, recordId, excludeOwn), which never widens what the scopes allow. " +
      "Events are kept EVENT_RETENTION_DAYS (default 30); an `after` older than the oldest kept event is 410 resync_required with `oldestChangeVersion`. " +
      "Sync recipe (docs/sync.md): take a snapshot (any list answers the changeVersion it is exact for), then page through ?after=<it> until nextCursor is null; the last page's changeVersion is where to follow from next, filtered or not.",
    query: z.strictObject({
      after: z.coerce
        .number()
        .int()
        .min(0)
        .max(Number.MAX_SAFE_INTEGER)
        .default(0)
        .openapi({ description: "Return events with a greater changeVersion." }),
      limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: "Page size, 1 to 200." }),
      ...FeedFilterQuery,
    }),
    errors: ["resync_required"],
    response: { schema: EventListSchema, description: "A page of events in changeVersion order.", headers: ["Link"] },
    verb: listEvents,
    async handler(c, { query }) {
      const { after, limit, ...filter } = query;
      const retentionSeconds = settingsOf(c.env).events.retentionSeconds;
      const page = await listEvents({ ctx: serviceContext(c), input: { after, limit, filter: feedFilterOf(filter), retentionSeconds } });
      return eventsReply(c.req.url, page, "after");
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/realtime/tokens",
    operationId: "createRealtimeToken",
    scope: null,
    tag,
    summary: "Mint a short-lived token for joining the realtime room from a browser",
    description:
      "The token carries the caller's organisation, what it was minted from (a key, a person's session, an OAuth application's grant) and a subset of its read scopes; pass it as query: { token } instead of the key.",
    body: TokenRequestSchema,
    errors: ["insufficient_scope"],
    response: { status: 201, schema: recordEnvelope(TokenSchema), description: "The token." },
    verb: mintRealtimeToken,
    async handler(c, { body }) {
      const realtime = settingsOf(c.env).realtime;
      if (!realtime) throw new DomainError("unavailable", "realtime is not configured on this deployment");
      const minted = await mintRealtimeToken({
        ctx: serviceContext(c),
        input: { secret: realtime.secret, scopes: body.scopes, ttlSeconds: body.ttlSeconds },
      });
      const { orgId, ...token } = minted;
      return reply({ ...token, organisation: orgId, realtime: realtimeInfo(c.env, orgId, "token") }, "realtime token created");
    },
  }),
];
