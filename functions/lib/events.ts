import type { Scope } from "./scopes.ts";

/** An event as clients receive it, from the room, webhooks and GET /v1/events (SPEC "changeVersion and events"). */
export interface OpsEvent {
  id: string;
  type: string;
  orgId: string;
  changeVersion: number;
  occurredAt: string;
  data: Record<string, unknown>;
  changes: Record<string, { from: unknown; to: unknown }> | null;
}

/** The read scope a key needs to see an event, by the event's resource (the part of type before the dot). */
export const EVENT_SCOPES: Record<string, Scope> = {
  task: "tasks.read",
  project: "projects.read",
  milestone: "projects.read",
  personnel: "organisation.read",
  risk: "risks.read",
  issue: "issues.read",
  financialEntry: "financials.read",
};

export function scopeOfEvent(type: string): Scope | undefined {
  return EVENT_SCOPES[type.split(".")[0] ?? ""];
}
