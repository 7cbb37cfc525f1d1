import { z } from "zod";
import type { EventFilter } from "../domain/event-filter.ts";
import { ACTOR_TYPES, type OpsEvent } from "../domain/events.ts";
import { DELIVERY_OUTCOMES } from "../domain/records.ts";
import type { Assert, Equal } from "../domain/type-equality.ts";

// The one protocol between the Worker and the organisation's room, parsed on both sides. Every
// message crosses with the shared REALTIME_SECRET; a malformed one is answered 400, never thrown.
//
//   Worker -> room   POST /parties/v1/<orgId>                     RoomMessage (deliver, replay -> QueuedAnswer)
//   room -> Worker   GET  /internal/rooms/<orgId>/start           -> { watermark }
//                    GET  /internal/rooms/<orgId>/events?after=N   -> { events }
//                    GET  /internal/rooms/<orgId>/webhooks         -> { webhooks: WebhookTarget[] }
//                    POST /internal/rooms/<orgId>/deliveries       { attempts: DeliveryAttempt[] }
//                    POST /internal/rooms/<orgId>/webhooks/<id>/disable  { reason }
//                    POST /internal/rooms/<orgId>/sockets          SocketCredential -> SocketIdentity | refusal

const Uuid = z.uuid();
/** A timestamp as the room and the Worker write them (toISOString), naming a real instant. */
const Instant = z.iso.datetime();

/** The kernel's OpsEvent (domain/events.ts) as the room parses it; tsc checks the two agree below. */
export const OpsEventSchema = z.object({
  id: Uuid,
  type: z.string().min(1).max(100),
  orgId: Uuid,
  changeVersion: z.number().int().min(0),
  occurredAt: Instant,
  data: z.record(z.string(), z.unknown()),
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).nullable(),
  actor: z.object({
    type: z.enum(ACTOR_TYPES),
    id: z.string().nullable(),
    name: z.string(),
    onBehalfOf: z.object({ type: z.literal("user"), id: z.string(), name: z.string() }).optional(),
  }),
  batchId: Uuid.nullable().default(null),
});
type _OpsEventAgrees = Assert<Equal<z.infer<typeof OpsEventSchema>, OpsEvent>>;

/** Events per replay message: a replay of thousands of events crosses in requests of bounded size. */
export const REPLAY_BATCH = 250;

/** What the Worker tells a room: events to deliver, that its webhooks changed, one delivery, or keys revoked. */
export const RoomMessageSchema = z.union([
  z.strictObject({ events: z.array(OpsEventSchema).max(5_000) }),
  z.strictObject({ webhooksChanged: z.literal(true) }),
  z.strictObject({ deliver: z.strictObject({ webhookId: Uuid, event: OpsEventSchema }) }),
  /** Past events for one webhook, in changeVersion order, already filtered by the API: queued as they are. */
  z.strictObject({ replay: z.strictObject({ webhookId: Uuid, events: z.array(OpsEventSchema).min(1).max(REPLAY_BATCH) }) }),
  /** These keys were revoked: the room closes every socket opened with them (4401). */
  z.strictObject({ keysRevoked: z.array(Uuid).min(1).max(1_000) }),
  /** These sessions were signed out: the room closes every socket opened with their tokens (4401). */
  z.strictObject({ sessionsEnded: z.array(Uuid).min(1).max(1_000) }),
  /**
   * These people left the organisation or changed role: the room closes their sockets (4401); a
   * person still a member reconnects with a new token, and the scopes of their role now.
   */
  z.strictObject({ membersChanged: z.array(Uuid).min(1).max(1_000) }),
  /** These installations of OAuth applications ended (uninstalled, or the application deleted): the room closes their sockets (4401). */
  z.strictObject({ installationsEnded: z.array(Uuid).min(1).max(1_000) }),
  /**
   * Notifications for people of the organisation (docs/notifications.md): each goes to the sockets
   * of its person, as { type: "notification", notification }. Sent again by the sweep until a
   * room answers, so a socket may see one twice: its id tells them apart.
   */
  z.strictObject({
    notifications: z
      .array(z.strictObject({ userId: Uuid, notification: z.object({ id: Uuid }).catchall(z.unknown()) }))
      .min(1)
      .max(1_000),
  }),
  /** These grants of OAuth applications were revoked (a refresh token revoked or reused): the room closes their sockets (4401). */
  z.strictObject({ grantsRevoked: z.array(Uuid).min(1).max(1_000) }),
]);
export type RoomMessage = z.infer<typeof RoomMessageSchema>;

/**
 * The room's answer to `deliver` and `replay`: all of the message queued, or none of it: the
 * webhook is off or gone, or (`backlog` and `backlogLimit` set) it already has `backlog` jobs
 * queued and the message would take it past its limit.
 */
export const QueuedAnswerSchema = z.object({
  queued: z.boolean(),
  backlog: z.number().int().min(0).optional(),
  backlogLimit: z.number().int().min(1).optional(),
});
export type QueuedAnswer = z.infer<typeof QueuedAnswerSchema>;

/** What the room knows about a socket's credential before asking the Worker. */
export const SocketCredentialSchema = z.union([
  /** An API key, exactly as the client sent it (the Worker checks its shape, limit and state). */
  z.strictObject({ apiKey: z.string().max(200), clientAddress: z.string().max(100) }),
  /** A realtime token whose signature the room has verified: is the key it names still active? */
  z.strictObject({ keyId: Uuid, clientAddress: z.string().max(100) }),
  /** A realtime token minted for a person: is the session it names still signed in, and a member? */
  z.strictObject({ sessionId: Uuid, clientAddress: z.string().max(100) }),
  /** A realtime token minted with an application's access token: is its grant still live, and its installation? */
  z.strictObject({ grantId: Uuid, clientAddress: z.string().max(100) }),
]);
export type SocketCredential = z.infer<typeof SocketCredentialSchema>;

/** The Worker's answer for an accepted credential. */
export const SocketIdentitySchema = z.object({
  orgId: Uuid,
  /** The key of a socket opened with a key or a key's token; null for a person's. */
  keyId: Uuid.nullable(),
  /** A person's token: their session and their id; absent for a key's. */
  sessionId: Uuid.optional(),
  /** A person's id; for an application's token, the person it acts for, if any. */
  userId: Uuid.optional(),
  /** An application's token: its grant, installation and application. */
  grantId: Uuid.optional(),
  installationId: Uuid.optional(),
  appId: Uuid.optional(),
  scopes: z.array(z.string()),
});
export type SocketIdentity = z.infer<typeof SocketIdentitySchema>;

// The fields added since the first release have defaults: a room that cannot reach the API falls
// back on the copy it stored, which may be older than them.
export const WebhookTargetSchema = z.object({
  id: Uuid,
  url: z.string(),
  events: z.array(z.string()),
  projectId: Uuid.nullable().default(null),
  excludeOwn: z.boolean().default(false),
  createdByKeyId: Uuid.nullable().default(null),
  createdByUserId: Uuid.nullable().default(null),
  createdByApplicationId: Uuid.nullable().default(null),
  scopes: z.array(z.string()),
  enabled: z.boolean(),
  ordered: z.boolean().default(false),
  secret: z.string(),
  /** The secret before the last rotation, and when deliveries stop being signed with it too. */
  previousSecret: z.string().nullable().default(null),
  previousSecretExpiresAt: Instant.nullable().default(null),
  /** The organisation's changeVersion when it was registered or last turned on: it receives the events after it. */
  receivesAfter: z.number().int().min(0).default(0),
});
export type WebhookTarget = z.infer<typeof WebhookTargetSchema>;

/** The feed filter a webhook's fields describe: the room's fan-out and the API's replay apply the same one. */
export function webhookFilter(
  webhook: Pick<WebhookTarget, "events" | "projectId" | "excludeOwn" | "createdByKeyId" | "createdByUserId" | "createdByApplicationId">,
): EventFilter {
  return {
    types: webhook.events,
    projectId: webhook.projectId,
    recordId: null,
    excludeOwn: webhook.excludeOwn
      ? { keyId: webhook.createdByKeyId, userId: webhook.createdByUserId, appId: webhook.createdByApplicationId }
      : null,
  };
}

export const DeliveryAttemptSchema = z.strictObject({
  id: Uuid,
  webhookId: Uuid,
  eventId: Uuid,
  eventType: z.string().max(100),
  changeVersion: z.number().int().min(0).nullable(),
  attempt: z.number().int().min(1).max(100),
  outcome: z.enum(DELIVERY_OUTCOMES),
  responseStatus: z.number().int().min(100).max(999).nullable(),
  durationMs: z.number().int().min(0).nullable(),
  error: z.string().max(1_000).nullable(),
  responseExcerpt: z.string().max(1_000).nullable(),
  nextRetryAt: Instant.nullable(),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;

export const DeliveryReportSchema = z.strictObject({ attempts: z.array(DeliveryAttemptSchema).max(1_000) });
export const DisableWebhookSchema = z.strictObject({ reason: z.string().min(1).max(500) });

/** Socket close codes the room uses, in the 4000-4999 range applications own. */
export const CLOSE_CODES = {
  /** The credential the socket was opened with is no longer valid (a revoked key). */
  revoked: 4401,
} as const;
