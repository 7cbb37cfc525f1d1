/**
 * Resolves with `current()` once `done` holds of it, checked now and each time a listener in
 * `listeners` is called (a message arrived); rejects after `timeoutMs` saying what was seen.
 */
export function waitUntil<T>(
  listeners: Set<() => void>,
  current: () => T,
  done: (value: T) => boolean,
  timeoutMs: number,
  describe: (value: T) => string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!done(current())) return;
      cleanup();
      resolve(current());
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out after ${timeoutMs} ms; ${describe(current())}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      listeners.delete(check);
    };
    listeners.add(check);
    check();
  });
}

/** Calls `read` until `done` holds of what it answers, or fails after `timeoutMs` with the last answer. */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not there after ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
