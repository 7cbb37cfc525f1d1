import { openApiDocument } from "../functions/openapi/document.ts";
import { loadRoutes } from "../functions/routes/index.ts";
import { CLOSE_CODES } from "../realtime/protocol.ts";

const routes = await loadRoutes();

// The realtime room's messages as an AsyncAPI 3.0 document (client/asyncapi.json, written by
// `npm run generate`). Its schemas are the OpenAPI document's own components (`Event` and
// the event types it unions, `Notification`), copied by reference under the same paths, so a
// socket's event and GET /v1/events' are one definition, and so are a pushed notification and
// GET /v1/notifications' items. test/realtime/asyncapi.test.ts checks live messages against it.

type Json = Record<string, unknown>;

/** The names of the components `roots` reach through $ref, roots included. */
function reachable(schemas: Record<string, Json>, roots: string[]): string[] {
  const seen = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== "object") return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string" && inner.startsWith("#/components/schemas/")) {
        const name = inner.slice("#/components/schemas/".length);
        if (!seen.has(name)) {
          seen.add(name);
          visit(schemas[name]);
        }
      } else visit(inner);
    }
  };
  visit(roots.map((name) => ({ $ref: `#/components/schemas/${name}` })));
  return [...seen].sort();
}

const text = (description: string) => ({ type: "string", description });

/** AsyncAPI's schema names the discriminating property by a string, where OpenAPI has an object. */
function asAsyncApiSchema(schema: Json): Json {
  const discriminator = schema.discriminator as { propertyName?: string } | undefined;
  return discriminator && typeof discriminator === "object" ? { ...schema, discriminator: discriminator.propertyName } : schema;
}

/** What the room is, how a socket joins it and is refused, and how a client catches up. */
const INFO = {
  title: "opsroom realtime room",
  version: "v1",
  license: { name: "Proprietary" },
  contact: { name: "opsroom API reference", url: "http://127.0.0.1:8787/docs" },
  tags: [{ name: "Realtime", description: "The organisation's live feed of events." }],
  description: [
    "One room per organisation (PartyKit party `v1`, room = the organisation's id). A socket connects with `apiKey` or a realtime `token` (POST /v1/realtime/tokens) in its query, and may narrow its feed with `types`, `projectId`, `recordId` and `excludeOwn=true`, as GET /v1/events takes them.",
    "The credential is checked before the socket opens; a refusal answers the upgrade in the API's error shape (ApiError, with a requestId): 400 `invalid_field` for a malformed filter, 401 `unauthorized` or `invalid_key`, 404 `not_found` for another organisation's room, 429 `rate_limited`.",
    `On open the room sends \`ready\`, then every event the socket may see after its changeVersion, in order, each once (\`ready\` comes again if events it promised were pruned by retention before the room could deliver them). When the key is revoked the room closes the socket with code ${CLOSE_CODES.revoked} and a reason. Sockets only listen: the text \`ping\` is answered \`pong\`.`,
    "A socket opened with a person's realtime token also receives that person's notifications as they are made (`notification`, docs/notifications.md), whatever its filters.",
    "Reconnect recipe (docs/sync.md): on every `ready`, page GET /v1/events?after=<last applied> until nextCursor is null, then apply live events above it.",
  ].join("\n\n"),
};

/** The one channel, the organisation's room, and the filters a socket's query may carry. */
const CHANNELS = {
  room: {
    address: "/parties/v1/{orgId}",
    parameters: { orgId: { description: "The organisation's id (GET /v1's `organisation`)." } },
    messages: {
      ready: { $ref: "#/components/messages/ready" },
      event: { $ref: "#/components/messages/event" },
      notification: { $ref: "#/components/messages/notification" },
      ping: { $ref: "#/components/messages/ping" },
      pong: { $ref: "#/components/messages/pong" },
    },
    bindings: {
      ws: {
        query: {
          type: "object",
          properties: {
            apiKey: text("An API key (ops_...): the socket sees what its read scopes may see."),
            token: text("A realtime token from POST /v1/realtime/tokens, instead of apiKey."),
            types: text("Comma-separated event type patterns: *, <resource>.* or <resource>.<action> (at most 50)."),
            projectId: { type: "string", format: "uuid", description: "Only this project's events and those of its records." },
            recordId: { type: "string", format: "uuid", description: "Only the events of this record." },
            excludeOwn: {
              type: "string",
              enum: ["true", "false"],
              description: "true: leave out the events of the credential's own writes.",
            },
          },
        },
      },
    },
  },
};

/** What a socket receives (ready, then events; a person's, their notifications) and may send (ping). */
const OPERATIONS = {
  receiveReady: {
    action: "receive",
    channel: { $ref: "#/channels/room" },
    summary: "On every (re)connect: where the live feed starts.",
    description: "Sent first on every connection: catch up with GET /v1/events?after=<last applied>, then apply live events above it.",
    messages: [{ $ref: "#/channels/room/messages/ready" }],
  },
  receiveEvent: {
    action: "receive",
    channel: { $ref: "#/channels/room" },
    summary: "Each change the socket may see, in changeVersion order.",
    description: "One message per event, in changeVersion order, each once per connection; the events of a batch arrive together.",
    messages: [{ $ref: "#/channels/room/messages/event" }],
  },
  receiveNotification: {
    action: "receive",
    channel: { $ref: "#/channels/room" },
    summary: "A notification of the person signed in (docs/notifications.md), as it is made.",
    description:
      "Only on a socket opened with a realtime token of a person's session (POST /v1/realtime/tokens), and only their own notifications, those shown in their inbox. It is the item GET /v1/notifications lists; a room outage may send one twice: tell them apart by `notification.id`.",
    messages: [{ $ref: "#/channels/room/messages/notification" }],
  },
  sendPing: {
    action: "send",
    channel: { $ref: "#/channels/room" },
    summary: "Liveness check.",
    description: "The text ping; the room answers the text pong.",
    messages: [{ $ref: "#/channels/room/messages/ping" }],
    reply: { channel: { $ref: "#/channels/room" }, messages: [{ $ref: "#/channels/room/messages/pong" }] },
  },
};

/** The messages, their payloads the schemas below. */
const MESSAGES = {
  ready: {
    name: "ready",
    title: "Ready",
    payload: { $ref: "#/components/schemas/Ready" },
    examples: [{ payload: { type: "ready", changeVersion: 42 } }],
  },
  event: {
    name: "event",
    title: "Event",
    summary: "An event, discriminated by type, as GET /v1/events and webhooks carry it.",
    payload: { $ref: "#/components/schemas/Event" },
  },
  notification: {
    name: "notification",
    title: "Notification",
    summary: "One of the person's notifications, as GET /v1/notifications lists it.",
    payload: { $ref: "#/components/schemas/NotificationMessage" },
  },
  ping: { name: "ping", contentType: "text/plain", payload: { const: "ping" } },
  pong: { name: "pong", contentType: "text/plain", payload: { const: "pong" } },
};

/** The first message on every connection. */
const READY = {
  type: "object",
  required: ["type", "changeVersion"],
  additionalProperties: false,
  properties: {
    type: { const: "ready" },
    changeVersion: {
      type: "integer",
      minimum: 0,
      description: "Every visible event after this changeVersion follows, in order, each once.",
    },
  },
};

/** A notification pushed to its person's sockets. */
const NOTIFICATION_MESSAGE = {
  type: "object",
  required: ["type", "notification"],
  additionalProperties: false,
  properties: { type: { const: "notification" }, notification: { $ref: "#/components/schemas/Notification" } },
};

export function asyncApiDocument(): Json {
  const openapi = openApiDocument(routes, "http://127.0.0.1:8787") as unknown as { components: { schemas: Record<string, Json> } };
  const schemas = openapi.components.schemas;
  return {
    asyncapi: "3.0.0",
    info: INFO,
    defaultContentType: "application/json",
    servers: {
      local: {
        host: "127.0.0.1:1999",
        protocol: "ws",
        description: "The realtime server of `npm run dev`; a deployment's is wss, at GET /v1's realtime.url.",
      },
    },
    channels: CHANNELS,
    operations: OPERATIONS,
    components: {
      messages: MESSAGES,
      schemas: {
        Ready: READY,
        NotificationMessage: NOTIFICATION_MESSAGE,
        ...Object.fromEntries(reachable(schemas, ["Event", "Notification"]).map((name) => [name, asAsyncApiSchema(schemas[name]!)])),
      },
    },
  };
}

/** The AsyncAPI document as client/asyncapi.json holds it. */
export const renderAsyncApiJson = () => JSON.stringify(asyncApiDocument(), null, 2) + "\n";
