import { describe, expect, it } from "vitest";
import { DatabaseUnavailableError } from "../../db/client.ts";
import type { Bindings } from "../../functions/env.ts";
import { consumeRateLimit } from "../../functions/middleware/rate-limit.ts";
import { countRequests, type CountingWindow, type RateLimitLease } from "../../functions/rate-limit/lease.ts";

// Issue 45 row 8: the errors Cloudflare throws at the caller of a Durable Object (docs:
// durable-objects/best-practices/error-handling). Open-source workerd never throws them (no deploy
// resets an object, nothing is overloaded), so the rate limiter's namespace here is a fake whose
// stubs throw each kind, as Cloudflare marks them, before the real count (countRequests) answers.
// A retryable error is tried once more on a new stub; an overloaded one, one the object's own code
// threw, or a second retryable one is the 503 it always was.

type Failure = Error & { retryable?: boolean; overloaded?: boolean; remote?: boolean };

function failure(message: string, marks: Omit<Failure, keyof Error>): Failure {
  return Object.assign(new Error(message), marks);
}

/** Cloudflare's errors, by kind (the marks its docs name; the messages are the runtime's). */
const ERRORS = {
  resetOnDeploy: () => failure("Durable Object reset because its code was updated.", { retryable: true }),
  transient: () => failure("Network connection lost.", { retryable: true }),
  overloaded: () => failure("Durable Object is overloaded. Too many requests queued.", { retryable: true, overloaded: true }),
  remote: () => failure("TypeError: the object's own code failed", { remote: true }),
};

/** A RATE_LIMITER namespace whose stubs throw `errors` in turn, then count for real. */
function fakeNamespace(errors: Array<() => Failure>) {
  const window: CountingWindow = { start: 0, count: 0 };
  const calls = { stubs: 0, consumes: 0 };
  const pending = [...errors];
  const answer = async (need: number, limit: number): Promise<RateLimitLease> => {
    calls.consumes++;
    const next = pending.shift();
    if (next) throw next();
    return countRequests(window, limit, need, Date.now());
  };
  const namespace = {
    idFromName: (name: string) => ({ name }),
    get: () => {
      calls.stubs++;
      return { consume: (_key: string, _address: string, need: number) => answer(need, 600), consumeAt: answer };
    },
  };
  return { env: { RATE_LIMITER: namespace } as unknown as Bindings, calls, window };
}

let keys = 0;
const consume = (env: Bindings) => consumeRateLimit(env, `key-hash-${++keys}`, "192.0.2.1");

describe("the rate limiter's Durable Object errors (issue 45 row 8)", () => {
  for (const kind of ["resetOnDeploy", "transient"] as const) {
    it(`a retryable error (${kind}) is tried once more on a new stub, and the call is counted`, async () => {
      const { env, calls, window } = fakeNamespace([ERRORS[kind]]);
      const decision = await consume(env);
      expect(decision).toMatchObject({ known: true, allowed: true, limit: 600 });
      expect(calls).toEqual({ stubs: 2, consumes: 2 });
      expect(window.count).toBeGreaterThan(0);
    });
  }

  it("a second retryable error is the 503: one retry, never more", async () => {
    const { env, calls } = fakeNamespace([ERRORS.resetOnDeploy, ERRORS.resetOnDeploy]);
    await expect(consume(env)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(calls.consumes).toBe(2);
  });

  it("an overloaded object is never tried again, though it is marked retryable too", async () => {
    const { env, calls, window } = fakeNamespace([ERRORS.overloaded]);
    await expect(consume(env)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(calls).toEqual({ stubs: 1, consumes: 1 });
    expect(window.count).toBe(0);
  });

  it("an error of the object's own code is not tried again", async () => {
    const { env, calls } = fakeNamespace([ERRORS.remote]);
    await expect(consume(env)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(calls.consumes).toBe(1);
  });
});
