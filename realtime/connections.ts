// Connections of one invocation. Cloudflare lets an invocation have six connections waiting for
// their response headers at once; a seventh fetch() is queued, unsent, until one of the six has its
// headers (docs/deployment.md "Limits"). Open-source workerd (partykit dev, wrangler dev) has no
// such queue, so a room that starts 16 requests at once behaves there as it never will deployed:
// the queued ones' timers run while they wait, and they can time out without being sent.
//
// `heldConnections` is what the room does about it: it never asks for more than six at once, and
// starts a request's timeout only once the request holds one of them. `queuedLikeWorkers` is the
// platform's queue, put in front of the room's fetch in development and the tests (the room var
// MODEL_WORKERS_LIMITS=true), so that they see the queue production has.

export const CONNECTIONS_PER_INVOCATION = 6;

export type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/**
 * At most `size` calls at once, the rest waiting first come, first served; a call is given up while
 * it waits if `signal` aborts (then it never runs).
 */
export function queue(size: number): <T>(work: () => Promise<T>, signal?: AbortSignal | null) => Promise<T> {
  let active = 0;
  const waiting: Array<{ go: () => void }> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next.go();
    else active--;
  };
  return async (work, signal) => {
    if (active < size) active++;
    else
      await new Promise<void>((resolve, reject) => {
        const entry = { go: resolve };
        waiting.push(entry);
        signal?.addEventListener("abort", () => {
          const at = waiting.indexOf(entry);
          if (at < 0) return;
          waiting.splice(at, 1);
          reject(signal.reason);
        });
      });
    try {
      return await work();
    } finally {
      release();
    }
  };
}

/**
 * Workers' queue in front of `fetch`: six requests waiting for headers, the next sent when one of
 * them has its headers or fails. A queued request's signal runs meanwhile, as deployed: one that
 * times out in the queue fails without being sent.
 */
export function queuedLikeWorkers(fetch: Fetch, size = CONNECTIONS_PER_INVOCATION): Fetch {
  const run = queue(size);
  return (input, init) => run(() => fetch(input, init), init?.signal);
}

/**
 * The room's own use of its connections: at most six requests waiting for headers, so that none
 * is ever queued by the platform, and a request's `timeoutMs` counted from when it holds one.
 * Answers with the response's headers; its body is read after the connection is given back.
 */
export function heldConnections(fetch: Fetch, size = CONNECTIONS_PER_INVOCATION) {
  const run = queue(size);
  return {
    fetch: (input: RequestInfo | URL, init: RequestInit = {}, timeoutMs?: number): Promise<Response> =>
      run(() => fetch(input, timeoutMs === undefined ? init : { ...init, signal: AbortSignal.timeout(timeoutMs) })),
  };
}
export type HeldConnections = ReturnType<typeof heldConnections>;
