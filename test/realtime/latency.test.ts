import { expect, it } from "vitest";
import { api } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { connectToRoom, useRoom } from "../helpers/realtime.ts";

// Write-to-socket latency on the local stack : one writer, one socket, ~200
// PATCHes one after another; for each, the time from sending the PATCH to its task.updated
// arriving on the socket, beside the PATCH's own round trip (the publish runs after the response,
// so the event arrives about when the response does). Printed, and quoted in README's Realtime
// section. Loose bound only: the machine is shared.

useRoom();

const WARM_UP = 10;
const WRITES = 200;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

it(`write-to-socket latency over ${WRITES} writes (p50/p99)`, { timeout: 120_000 }, async () => {
  const tenant = await createTenant({ rateLimit: 10_000 });
  const task = await tenant.insertTask();
  const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
  const fromRequest: number[] = [];
  const roundTrips: number[] = [];
  for (let i = 1; i <= WARM_UP + WRITES; i++) {
    const sent = performance.now();
    const response = await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { title: `Latency ${i}` } });
    const answered = performance.now();
    expect(response.status).toBe(200);
    await socket.waitForEvents(i);
    const arrived = socket.messages.at(-1)!;
    expect(arrived.message).toMatchObject({ type: "task.updated", changeVersion: i, data: { title: `Latency ${i}` } });
    if (i > WARM_UP) {
      fromRequest.push(arrived.at - sent);
      roundTrips.push(answered - sent);
    }
  }
  const summary = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: Math.round(percentile(sorted, 50)), p99: Math.round(percentile(sorted, 99)), max: Math.round(sorted.at(-1)!) };
  };
  const request = summary(fromRequest);
  const write = summary(roundTrips);
  console.log(
    `[realtime latency] ${WRITES} writes: write sent -> event on socket p50 ${request.p50} ms, p99 ${request.p99} ms (max ${request.max}); ` +
      `the PATCH's own round trip p50 ${write.p50} ms, p99 ${write.p99} ms`,
  );
  expect(socket.events()).toHaveLength(WARM_UP + WRITES);
  expect(request.p99).toBeLessThan(5_000);
});
