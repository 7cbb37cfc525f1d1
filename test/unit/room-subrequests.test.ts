import { describe, expect, it } from "vitest";
import { countedFetch, Invocation, subrequestLimitOf, TOO_MANY_SUBREQUESTS } from "../../realtime/subrequests.ts";
import { deliveriesWithin } from "../../realtime/webhooks/dispatcher.ts";

// The room's count of an alarm's subrequests (realtime/subrequests.ts) and what its drain may spend
// of them (realtime/webhooks/dispatcher.ts); the room itself under the Free plan's 50 is
// test/webhooks/drain-subrequests.test.ts.

const answered = () => Promise.resolve(new Response("ok"));

describe("the room's subrequests (issue 45 row 2)", () => {
  it("SUBREQUESTS_PER_INVOCATION: unset is the Paid figure, anything below the Free figure or not a number is the Free figure", () => {
    expect(subrequestLimitOf(undefined)).toBe(1000);
    expect(subrequestLimitOf("")).toBe(1000);
    expect(subrequestLimitOf("50")).toBe(50);
    expect(subrequestLimitOf("10000")).toBe(10000);
    for (const value of ["10", "0", "-5", "1e9x", "fifty", "50.5"]) expect(subrequestLimitOf(value), value).toBe(50);
  });

  it("counts each call of the invocation, refuses the one past the figure when enforced (as Cloudflare does), and only counts otherwise", async () => {
    let current: Invocation | null = new Invocation(3, true);
    const fetch = countedFetch(answered, () => current);
    for (let i = 0; i < 3; i++) expect((await fetch("http://receiver.test/")).status).toBe(200);
    await expect(fetch("http://receiver.test/")).rejects.toThrow(TOO_MANY_SUBREQUESTS);
    current = new Invocation(3, false);
    for (let i = 0; i < 5; i++) await fetch("http://receiver.test/");
    expect(current.made).toBe(5);
    expect(current.left()).toBe(0);
    current = null;
    await fetch("http://receiver.test/");
  });

  it("a drain keeps what it may need after its deliveries: a disable per webhook and per request in flight, the reports, a reload", () => {
    expect(deliveriesWithin(Infinity, 3)).toBe(Infinity);
    expect(deliveriesWithin(1000, 1)).toBe(1000 - (1 + 6 + 2 + 2));
    expect(deliveriesWithin(50, 2)).toBe(50 - (2 + 6 + 1 + 2));
    expect(deliveriesWithin(5, 2)).toBe(0);
  });
});
