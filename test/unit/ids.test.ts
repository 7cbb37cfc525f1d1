import { afterEach, describe, expect, it, vi } from "vitest";
import { UUID_PATTERN, uuidv7 } from "../../domain/ids.ts";

// domain/ids.ts: UUIDv7 ids that sort by creation, within a millisecond too (RFC 9562 section 6.2,
// method 1), as one isolate makes them.

/** The id's 48-bit milliseconds and its 12-bit counter. */
const partsOf = (id: string) => {
  const hex = id.replace(/-/g, "");
  return { ms: parseInt(hex.slice(0, 12), 16), counter: parseInt(hex.slice(13, 16), 16) };
};

describe("uuidv7", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is a version 7, variant 10 UUID carrying the time it was made", () => {
    const before = Date.now();
    const id = uuidv7();
    expect(id).toMatch(UUID_PATTERN);
    expect(id[14]).toBe("7");
    expect("89ab").toContain(id[19]);
    expect(partsOf(id).ms).toBeGreaterThanOrEqual(before);
    expect(partsOf(id).ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it("sorts after the id before it, thousands within one millisecond, when the clock stands still", () => {
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + 60_000);
    const ids = Array.from({ length: 10_000 }, () => uuidv7());
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `${ids[i - 1]} then ${ids[i]}`).toBe(true);
    // The counter starts below 2048, so at least 2048 ids fit in a millisecond before it moves on.
    const first = partsOf(ids[0]!);
    expect(first.counter).toBeLessThan(0x800);
    expect(ids.slice(0, 2048).every((id) => partsOf(id).ms === first.ms)).toBe(true);
    // Past the counter's last value the timestamp moves one millisecond on, and counting goes on from 0.
    const moved = ids.findIndex((id) => partsOf(id).ms !== first.ms);
    expect(moved).toBe(0x1000 - first.counter);
    expect(partsOf(ids[moved]!)).toEqual({ ms: first.ms + 1, counter: 0 });
  });

  it("keeps its order when the clock goes back, and starts a random counter when it moves forward", () => {
    const now = Date.now() + 120_000;
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    const a = uuidv7();
    clock.mockReturnValue(now - 5_000);
    const b = uuidv7();
    expect(b > a).toBe(true);
    expect(partsOf(b)).toEqual({ ms: partsOf(a).ms, counter: partsOf(a).counter + 1 });
    clock.mockReturnValue(now + 1);
    const c = uuidv7();
    expect(partsOf(c).ms).toBe(now + 1);
    expect(c > b).toBe(true);
    // Randomness is left where the counter is not: 62 bits of every id differ from the last one's.
    expect(c.slice(19)).not.toBe(b.slice(19));
  });
});
