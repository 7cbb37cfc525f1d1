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
