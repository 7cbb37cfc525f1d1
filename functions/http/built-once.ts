/**
 * `build`, run by the first call and its answer kept for every later one; a build that failed is
 * run again by the next call rather than failing every call after it. What the Worker builds on
 * first use rather than at start-up goes through it: a route's module and handler, the registry,
 * a lazily loaded part of the app (functions/index.ts).
 */
export function builtOnce<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () =>
    (built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    }));
}
