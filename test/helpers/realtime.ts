import { inject } from "vitest";

// What the Worker published to the organisation's realtime room (the harness's stand-in for
// PartyKit, test/setup/realtime-stub.ts). Publishing happens after the response, so a test that
// expects an event polls with `waitForPublished`.

export interface PublishedEvent {
  id: string;
  type: string;
  orgId: string;
  changeVersion: number;
  occurredAt: string;
  data: Record<string, unknown>;
  changes?: Record<string, { from: unknown; to: unknown }>;
}

export async function publishedEvents(orgId: string): Promise<PublishedEvent[]> {
  const response = await fetch(`${inject("realtimeStubUrl")}/published/${orgId}`);
  return ((await response.json()) as { events: PublishedEvent[] }).events;
}

/** Polls until at least `count` events were published for the organisation (or the timeout). */
export async function waitForPublished(orgId: string, count: number, timeoutMs = 5_000): Promise<PublishedEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await publishedEvents(orgId);
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
