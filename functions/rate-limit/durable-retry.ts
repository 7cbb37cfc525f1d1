// Errors of a Durable Object call (docs/deployment.md "Limits"). Cloudflare throws, at the caller,
// the errors of its own infrastructure as well as the object's: an object reset because its code
// was updated (every deploy), a transient internal error, one overloaded by too many requests. Its
// error-handling guidance: an error with `.retryable` true may be tried again if the call can be
// applied twice, on a new stub; one with `.overloaded` true never (retrying worsens the overload).
// An error the object's own code threw (`.remote` true) says nothing about trying again.
//
// A rate limiter's count is such a call: applied twice, it counts one call's cost (and its lease)
// twice, which can only refuse sooner, never allow more than the limit. So a retryable error is
// tried once more, at once; a second failure, or any other error, is the 503 it was.

/** Whether Cloudflare marks `error` as worth one more try: retryable, and not an overload. */
export function retryableOnce(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const marks = error as { retryable?: unknown; overloaded?: unknown };
  return marks.retryable === true && marks.overloaded !== true;
}

/** Runs `call` (which takes a new stub each time), and once more if its error is retryable. */
export async function withOneRetry<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!retryableOnce(error)) throw error;
    return call();
  }
}
