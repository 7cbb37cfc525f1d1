import { AsyncLocalStorage } from "node:async_hooks";

// Subrequests per invocation (docs/deployment.md "Limits"). Cloudflare counts every fetch() an
// invocation makes (each statement to Neon is one, each publish to a room one) and throws "Too
// many subrequests." past the plan's figure: 50 on Workers Free, 1,000 on Paid
// (SUBREQUESTS_PER_INVOCATION). Open-source workerd counts none.
//
// Each invocation (a request, a cron run) runs inside `countSubrequests`, which counts its own
// fetch() calls through AsyncLocalStorage: the loops that could make many (the sweep, the audit
// export) ask `subrequestsLeft()` and stop where the next invocation carries on. With
// MODEL_WORKERS_LIMITS=true (development and the tests, never deployed) the count is enforced as
// Cloudflare enforces it: the call past the figure throws before anything is sent.

interface Invocation {
  made: number;
  limit: number;
  enforce: boolean;
}

const current = new AsyncLocalStorage<Invocation>();
let installed = false;

/** Cloudflare's message for the call past the figure. */
export const TOO_MANY_SUBREQUESTS = "Too many subrequests.";

/** fetch(), counted for the invocation it runs in; once per isolate. */
function install(): void {
  if (installed) return;
  installed = true;
  const fetchOfPlatform = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const invocation = current.getStore();
    if (invocation) {
      invocation.made++;
      if (invocation.enforce && invocation.made > invocation.limit) return Promise.reject(new Error(TOO_MANY_SUBREQUESTS));
    }
    return fetchOfPlatform(input, init);
  };
}

/** Runs one invocation's work with its subrequests counted against `limit`. */
export function countSubrequests<T>(limit: number, enforce: boolean, work: () => T): T {
  install();
  return current.run({ made: 0, limit, enforce }, work);
}

/** How many more subrequests the invocation this runs in may make; Infinity outside one (the CLI, Node). */
export function subrequestsLeft(): number {
  const invocation = current.getStore();
  return invocation ? Math.max(0, invocation.limit - invocation.made) : Infinity;
}
