import { setTimeout as sleep } from "node:timers/promises";

const POLL_INTERVAL_MS = 100;
const REQUEST_TIMEOUT_MS = 2000;

/**
 * Polls `url` until it answers at all (any HTTP status) and returns that first response's status.
 * Gives up when `timeoutMs` passes or `abandon` settles first (the server's process exited).
 */
export async function waitForHttp(url: string, options: { timeoutMs: number; abandon: Promise<unknown> }): Promise<number> {
  const deadline = performance.now() + options.timeoutMs;
  let abandoned = false;
  void options.abandon.then(() => (abandoned = true));
  while (!abandoned && performance.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      await response.body?.cancel();
      return response.status;
    } catch {
      await sleep(POLL_INTERVAL_MS);
    }
  }
  throw new Error(abandoned ? `${url}: the process exited` : `${url} did not answer within ${Math.round(options.timeoutMs / 1000)} s`);
}

/** Status of a request with an API key, or the network error's message. */
export async function probeWithKey(url: string, key: string): Promise<{ status: number } | { error: string }> {
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Status of a plain GET, or the network error's message. */
export async function probe(url: string): Promise<number | string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    return (error as Error).message;
  }
}
