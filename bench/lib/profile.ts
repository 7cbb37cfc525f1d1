import type { Page } from "playwright-core";

// A CPU profile of a page (Chromium's sampling profiler, through the DevTools protocol), summed by
// function: where a page's own work went (self time; a forced style and layout counts to the
// function that forced it, the engine's own to "(program)").

/** Starts profiling `page`, sampling every 200 µs. */
export async function startProfile(page: Page) {
  const session = await page.context().newCDPSession(page);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: 200 });
  await session.send("Profiler.start");
  return session;
}

/** Stops it: the profile's functions by self time (ms), the 25 largest, with where each is. */
export async function printProfile(session: Awaited<ReturnType<typeof startProfile>>, title: string) {
  const { profile } = await session.send("Profiler.stop");
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = `${functionName || "(anonymous)"} ${url.replace(/^.*\/console\//, "")}:${lineNumber + 1}`;
    self.set(where, (self.get(where) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
  });
  console.log(`profile, ${title}: self time by function`);
  for (const [where, time] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`  ${time.toFixed(1).padStart(8)} ms  ${where}`);
}
