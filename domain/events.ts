import { attachmentScopes, parentOfAttachment } from "./attachments.ts";
import { RESOURCES, scopesOf, type ResourceType } from "./resources.ts";
import type { Scope } from "./scopes.ts";

/**
 * An event as clients receive it, from the room, webhooks and GET /v1/events: `type` is
 * <resource>.<action>, `changeVersion` the organisation's counter this change produced, `data`
 * the record after the change (for a delete, as it was), `changes` each changed field's from/to.
 */
export interface OpsEvent {
  id: string;
  type: string;
  orgId: string;
  changeVersion: number;
  occurredAt: string;
  data: Record<string, unknown>;
  changes: Record<string, { from: unknown; to: unknown }> | null;
  /** Who made the change: an API key (its id and application name), a person, an application, or opsroom itself (the CLI, the seed). */
  actor: EventActor;
  /** The POST /v1/batch that committed it (every event of one batch carries the same id); null for a single call. */
  batchId: string | null;
}

/**
 * Who can make a change: an API key, a person signed in, opsroom itself (the CLI, the seed; id
 * null), or an OAuth application (its id and name; `onBehalfOf` the person it acts for, absent
 * when it acts as itself). The protocol's and the public schemas and the console's type are built
 * from this list.
 */
export const ACTOR_TYPES = ["key", "user", "system", "app"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface EventActor {
  type: ActorType;
  id: string | null;
  name: string;
  /** For an application acting for a person: that person. */
  onBehalfOf?: { type: "user"; id: string; name: string };
}

/** opsroom itself (the CLI, the seed, a webhook's test event): the actor of a change no key or person made. */
export const SYSTEM_ACTOR: EventActor = { type: "system", id: null, name: "opsroom" };

/** What happened to the record: each resource's events are <resource>.<action>. */
export const EVENT_ACTIONS = ["created", "updated", "deleted"] as const;

/** The read scope a key needs to see an event, by the event's resource (the part of type before the dot): its declaration's. */
export const EVENT_SCOPES = Object.fromEntries(Object.values(RESOURCES).map((resource) => [resource.type, scopesOf(resource).read])) as {
  [K in ResourceType]: `${(typeof RESOURCES)[K]["scopes"]}.read`;
};

/**
 * The resources events are about: the records', and attachments, whose events each carry the read
 * scope of the record the file is on (a task's files: tasks.read).
 */
export type EventResource = keyof typeof EVENT_SCOPES | "attachment";
export const EVENT_RESOURCES: string[] = [...Object.keys(EVENT_SCOPES), "attachment"];

/** The read scope a key needs to see the event: its resource's, or for a file, its record's. */
export function scopeOfEvent(event: Pick<OpsEvent, "type" | "data"> | string): Scope | undefined {
  const type = typeof event === "string" ? event : event.type;
  const resource = type.split(".")[0] ?? "";
  if (resource === "attachment") {
    // A file's event is seen with the scope of its record, which its data names.
    const parent = typeof event === "string" ? undefined : parentOfAttachment(event.data);
    return parent ? attachmentScopes(parent).read : undefined;
  }
  return (EVENT_SCOPES as Record<string, Scope>)[resource];
}

/** The read scopes that see events: a socket's or a webhook's, narrowed to these. */
export const EVENT_READ_SCOPES: Scope[] = [...new Set(Object.values(EVENT_SCOPES))];

/** "task.updated", "task.*" or "*": an event name, a resource's events, or every event. */
export function isEventPattern(pattern: string): boolean {
  if (pattern === "*") return true;
  const [resource, action, ...rest] = pattern.split(".");
  return rest.length === 0 && EVENT_RESOURCES.includes(resource ?? "") && /^(\*|[a-z]+)$/.test(action ?? "");
}

export function matchesPattern(pattern: string, type: string): boolean {
  if (pattern === "*" || pattern === type) return true;
  return pattern.endsWith(".*") && type.startsWith(pattern.slice(0, -1));
}
