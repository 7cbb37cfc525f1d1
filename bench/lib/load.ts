import autocannon from "autocannon";

// Load generation. Over HTTP: autocannon (closed loop, `connections` requests in flight), with
// latencies taken from its per-response timings (float ms) rather than its integer histogram.
// For the database ceiling: the same closed loop in-process around an async call.

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx answers and socket errors: a valid run has none. */
  failures: number;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

function summarise(latencies: number[], seconds: number, failures: number): LoadResult {
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    failures,
  };
}

export interface HttpLoad {
  url: string;
  method?: "GET" | "POST" | "PATCH";
  headers?: Record<string, string>;
  /** A fresh body per request (a new title, so every PATCH is a real change). */
  body?: () => string;
  /** A fresh path per request. */
  path?: () => string;
  /** Status every answer must have (404 for the runtime ceiling). */
  expectStatus?: number;
  connections: number;
  /** How long to run; or */
  seconds?: number;
  /** how many requests to make in all (spread over the connections), however long that takes. */
  amount?: number;
}

export async function httpLoad(load: HttpLoad): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const expected = load.expectStatus;
  const startedAt = performance.now();
  let finish!: (error: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => (finish = (error) => (error ? reject(error) : resolve())));
  const instance = autocannon(
    {
      url: load.url,
      method: load.method ?? "GET",
      headers: load.headers ?? {},
      connections: load.connections,
      // autocannon ends a run at its next sample (every second by default): with a count, sample often,
      // so the run ends when its last answer arrives rather than up to a second later.
      ...(load.amount ? { amount: load.amount, sampleInt: 10 } : { duration: load.seconds }),
      pipelining: 1,
      timeout: 30,
      requests:
        load.body || load.path
          ? [
              {
                setupRequest: (request) => ({
                  ...request,
                  ...(load.path ? { path: load.path() } : {}),
                  ...(load.body ? { body: load.body() } : {}),
                }),
              },
            ]
          : undefined,
    },
    (error) => finish(error),
  );
  instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
    const ok = expected ? status === expected : status >= 200 && status < 300;
    if (ok) latencies.push(ms);
    else failures++;
  });
  instance.on("reqError", () => failures++);
  await finished;
  return summarise(latencies, (performance.now() - startedAt) / 1000, failures);
}

/** `connections` loops calling `call` back to back for `seconds`. */
export async function closedLoop(call: () => Promise<unknown>, connections: number, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const startedAt = performance.now();
  const until = startedAt + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          await call();
          latencies.push(performance.now() - t0);
        } catch {
          failures++;
        }
      }
    }),
  );
  return summarise(latencies, (performance.now() - startedAt) / 1000, failures);
}

/** `count` sequential calls; the latency of each. */
export async function sequential(call: () => Promise<unknown>, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  return times;
}

export const median = (values: number[]) => percentile(Float64Array.from(values).sort(), 50);
