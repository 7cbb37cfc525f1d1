import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heldConnections, queuedLikeWorkers } from "../../realtime/connections.ts";

// realtime/connections.ts against a real receiver (node:http): `queuedLikeWorkers`, the model of
// Workers' six connections waiting for headers per invocation, and `heldConnections`, the room's
// use of them (issue 45 row 1).

const hanging = new Set<ServerResponse>();
const arrived: string[] = [];
const server = createServer((request, response) => {
  arrived.push(request.url!);
  if (request.url!.startsWith("/hang")) hanging.add(response);
  else response.end("ok");
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const response of hanging) response.end();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
const releaseHanging = () => {
  for (const response of hanging) response.end("late");
  hanging.clear();
};
const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe("queuedLikeWorkers (the platform's queue, modelled)", () => {
  it("sends six at once; a seventh is sent only when one of them has its headers", async () => {
    arrived.length = 0;
    const fetch6 = queuedLikeWorkers(fetch);
    const stalled = Array.from({ length: 6 }, (_, i) => fetch6(`${base}/hang-${i}`));
    await until(() => arrived.length === 6);
    const seventh = fetch6(`${base}/ok`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(arrived).not.toContain("/ok");
    releaseHanging();
    expect(await (await seventh).text()).toBe("ok");
    await Promise.all(stalled);
    expect(arrived.at(-1)).toBe("/ok");
  });

  it("a queued request whose timer runs out fails without ever being sent", async () => {
    arrived.length = 0;
    const fetch6 = queuedLikeWorkers(fetch);
    const stalled = Array.from({ length: 6 }, (_, i) => fetch6(`${base}/hang-${i}`).catch(() => null));
    await until(() => arrived.length === 6);
    await expect(fetch6(`${base}/ok`, { signal: AbortSignal.timeout(100) })).rejects.toMatchObject({ name: "TimeoutError" });
    releaseHanging();
    await Promise.all(stalled);
    expect(arrived).not.toContain("/ok");
  });
});

describe("heldConnections (the room's)", () => {
  it("a request's timeout starts once it holds a connection: one queued behind six stalled ones is sent, not timed out", async () => {
    arrived.length = 0;
    const held = heldConnections(queuedLikeWorkers(fetch));
    const stalled = Array.from({ length: 6 }, (_, i) => held.fetch(`${base}/hang-${i}`, {}, 300).catch((error: Error) => error.name));
    await until(() => arrived.length === 6);
    // Queued 300 ms behind the stalled six, it then has its own 300 ms, and the receiver answers in time.
    const queued = held.fetch(`${base}/ok`, {}, 300);
    expect(await Promise.all(stalled)).toEqual(Array(6).fill("TimeoutError"));
    expect(await (await queued).text()).toBe("ok");
    releaseHanging();
  });
});
