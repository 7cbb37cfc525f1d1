import type { Fetch } from "./connections.ts";

// Subrequests of the room's alarm (docs/deployment.md "Limits"). A Durable Object's alarm is an
// invocation, and Cloudflare counts each fetch() it makes against the plan's figure: 50 on Workers
// Free, 1,000 on Paid; the call past it throws "Too many subrequests." (the Worker's side is
// functions/subrequests.ts). Open-source workerd, `partykit dev` included, counts none.
//
// The room counts what each alarm run asks of the network (deliveries, its calls to the API), and
// the drain (webhooks/dispatcher.ts) stops taking jobs where what it may still need would pass the
// figure: the alarm comes straight back for the rest. With the room var MODEL_WORKERS_LIMITS=true
// (development and the tests, never deployed) the figure is enforced as Cloudflare enforces it.
//
// Only the alarm is counted: it is the one invocation of the room with a loop. A request to the
// room (a publish, a change of webhooks) makes at most two calls to the API. A request's calls that
// run while an alarm is out count against the alarm: the count can only be high, never low.

/** Cloudflare's message for the call past the figure. */
export const TOO_MANY_SUBREQUESTS = "Too many subrequests.";
/** Subrequests per invocation on Workers Paid (the default of the room var SUBREQUESTS_PER_INVOCATION). */
export const SUBREQUESTS_PAID = 1_000;

/** Subrequests per invocation on Workers Free. */
export const SUBREQUESTS_FREE = 50;

/**
 * The room var SUBREQUESTS_PER_INVOCATION: the Paid figure when unset; a value that is not a whole
 * number of at least the Free figure counts as the Free figure (too low a figure costs only more
 * alarm runs, too high a one would cut a drain mid-way).
 */
export function subrequestLimitOf(value: string | undefined): number {
  if (value === undefined || value === "") return SUBREQUESTS_PAID;
  const limit = Number(value);
  return Number.isSafeInteger(limit) && limit >= SUBREQUESTS_FREE ? limit : SUBREQUESTS_FREE;
}

/** One invocation's count. */
export class Invocation {
  made = 0;
  constructor(
    readonly limit: number,
    readonly enforce: boolean,
  ) {}

  /** How many more subrequests it may make. */
  left(): number {
    return Math.max(0, this.limit - this.made);
  }
}

/**
 * `fetch`, each call counted against the invocation `current()` answers (none: not counted), and
 * refused as Cloudflare refuses it past the figure when that invocation enforces it.
 */
export function countedFetch(fetch: Fetch, current: () => Invocation | null): Fetch {
  return (input, init) => {
    const invocation = current();
    if (invocation) {
      invocation.made++;
      if (invocation.enforce && invocation.made > invocation.limit) return Promise.reject(new Error(TOO_MANY_SUBREQUESTS));
    }
    return fetch(input, init);
  };
}
