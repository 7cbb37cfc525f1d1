// The compute behind Neon's endpoint, as far as its wake-up shows to a client: Neon suspends a
// compute after 5 minutes without activity (its "scale to zero"; fixed on the Free plan) and starts
// it again on the next connection, which "generally takes a few hundred milliseconds" (Neon's docs,
// "Compute lifecycle" and "Scale to Zero"). In the proxy the wake is the control plane's
// wake_compute call before it connects (proxy/src/serverless/backend.rs PoolingBackend::
// connect_to_compute, proxy/src/control_plane/ WakeComputeError): a request that needs no
// connection (refused on its body or headers) wakes nothing, and every request that comes while it
// wakes waits for the same wake.

export interface ColdStart {
  /** Idle this long (no request in flight, none started), the compute is suspended. Neon: 5 minutes. */
  idleMs: number;
  /** What waking it adds to the first request after. */
  wakeMs: number;
}

/** Neon's defaults: suspended after 5 idle minutes; a wake of 500 ms, the middle of "a few hundred milliseconds". */
export const NEON_COLD_START: ColdStart = { idleMs: 5 * 60_000, wakeMs: 500 };

export interface Compute {
  /** Resolves once the compute is up: at once when it is, after the wake when it was suspended. */
  ready(): Promise<void>;
  /** A request is done with it (the idle time counts from the last one). */
  release(): void;
  /** Changes the model from now on (false: never suspended). */
  configure(coldStart: ColdStart | false): void;
  /** How many times it woke. */
  wakes(): number;
}

/** A compute that is up at start (the endpoint's first client is the migration run). */
export function modelledCompute(coldStart: ColdStart | false): Compute {
  let model = coldStart;
  let lastActive = Date.now();
  let inFlight = 0;
  let waking: Promise<void> | null = null;
  let woke = 0;
  return {
    async ready() {
      const suspended = model && inFlight === 0 && !waking && Date.now() - lastActive > model.idleMs;
      inFlight++;
      if (suspended) {
        woke++;
        const wakeMs = model ? model.wakeMs : 0;
        waking = new Promise<void>((resolve) => setTimeout(resolve, wakeMs)).finally(() => (waking = null));
      }
      if (waking) await waking;
    },
    release() {
      inFlight = Math.max(0, inFlight - 1);
      lastActive = Date.now();
    },
    configure(next) {
      model = next;
      lastActive = Date.now();
    },
    wakes: () => woke,
  };
}
