/* eslint-disable max-lines -- one module under test, realtime/webhooks/delivery.ts, a describe per export. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { generateWebhookSecret } from "../../domain/crypto/webhook-signature.ts";
import type { OpsEvent } from "../../domain/events.ts";
import { WebhookTargetSchema, type WebhookTarget } from "../../realtime/protocol.ts";
import { storedForm } from "../../realtime/stored-event.ts";
import { backlogLimitOf, DEFAULT_BACKLOG_LIMIT } from "../../realtime/webhooks/backlog.ts";
import {
  droppedReport,
  gone,
  nextRetryAt,
  reportOf,
  RETRY_DELAYS_MS,
  send,
  signingSecrets,
  succeeded,
  type Answer,
} from "../../realtime/webhooks/delivery.ts";
import type { Job } from "../../realtime/webhooks/queue.ts";

// realtime/webhooks/delivery.ts: one attempt as a signed POST to a real node:http receiver on
// 127.0.0.1, verified with the standardwebhooks package as an integrator would; and what the
// delivery log and the retry schedule make of the answer.

interface Received {
  method: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const servers: Array<{ close(): void; closeAllConnections(): void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A receiver that records each request and answers with `respond`. */
async function receiver(respond: (res: ServerResponse, request: Received) => void = (res) => res.end()) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const request = { method: req.method!, headers: req.headers, body };
      received.push(request);
      respond(res, request);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/opsroom`, received };
}

const EVENT: OpsEvent = {
  id: "0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b",
  type: "task.updated",
  orgId: "0190a5b2-0000-7000-8000-000000000001",
  changeVersion: 7,
  occurredAt: "2026-04-20T10:00:00.000Z",
  data: { id: "t1", title: "Ünïcode ✓", status: "in_progress" },
  changes: { status: { from: "todo", to: "in_progress" } },
  actor: { type: "key", id: "0190a5b2-0000-7000-8000-0000000000bb", name: "Ünïcode app" },
  batchId: null,
};

const job = (overrides: Partial<Job> = {}): Job => ({
  id: "job-1",
  webhookId: "0190a5b2-0000-7000-8000-0000000000aa",
  // As the room stores it: the body sent is the event itself (realtime/stored-event.ts).
  event: storedForm(EVENT),
  attempt: 1,
  dueAt: 0,
  ...overrides,
});
const target = (url: string, secret = generateWebhookSecret(), fields: Partial<WebhookTarget> = {}): WebhookTarget =>
  WebhookTargetSchema.parse({
    id: "0190a5b2-0000-7000-8000-0000000000aa",
    url,
    events: ["*"],
    scopes: [],
    enabled: true,
    secret,
    ...fields,
  });
const answer = (overrides: Partial<Answer>): Answer => ({
  status: 200,
  error: null,
  excerpt: null,
  startedAt: 1_000_000,
  durationMs: 12,
  ...overrides,
});

describe("send", () => {
  it("POSTs the event as JSON, signed as Standard Webhooks says, and reports the answer", async () => {
    const hook = await receiver((res) => res.writeHead(202, { "content-type": "text/plain" }).end("queued"));
    const secret = generateWebhookSecret();
    const before = Date.now();
    const result = await send(target(hook.url, secret), job());
    expect(result).toMatchObject({ status: 202, error: null, excerpt: "queued" });
    expect(result.startedAt).toBeGreaterThanOrEqual(before);
    expect(result.startedAt).toBeLessThanOrEqual(Date.now());
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.durationMs).toBeLessThanOrEqual(Date.now() - result.startedAt);
    expect(hook.received).toHaveLength(1);
    const [request] = hook.received as [Received];
    expect(request.method).toBe("POST");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["user-agent"]).toBe("opsroom-webhooks/1");
    expect(request.headers["webhook-id"]).toBe(EVENT.id);
    expect(request.body).toBe(JSON.stringify(EVENT));
    // Verified independently: the signature covers this id, timestamp and body, under this secret.
    const verified = new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    expect(verified).toEqual(EVENT);
    expect(() => new Webhook(generateWebhookSecret()).verify(request.body, request.headers as Record<string, string>)).toThrow();
  });

  it("during a rotation's overlap, signs under both secrets: each verifies on its own; after it, only the new one", async () => {
    const hook = await receiver();
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const until = new Date(Date.now() + 60_000).toISOString();
    await send(target(hook.url, current, { previousSecret: previous, previousSecretExpiresAt: until }), job());
    const [during] = hook.received as [Received];
    expect(String(during.headers["webhook-signature"])).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    for (const secret of [current, previous])
      expect(new Webhook(secret).verify(during.body, during.headers as Record<string, string>)).toEqual(EVENT);
    expect(() => new Webhook(generateWebhookSecret()).verify(during.body, during.headers as Record<string, string>)).toThrow();

    const ended = new Date(Date.now() - 1).toISOString();
    await send(target(hook.url, current, { previousSecret: previous, previousSecretExpiresAt: ended }), job());
    const after = hook.received[1]!;
    expect(String(after.headers["webhook-signature"])).not.toContain(" ");
    expect(new Webhook(current).verify(after.body, after.headers as Record<string, string>)).toEqual(EVENT);
    expect(() => new Webhook(previous).verify(after.body, after.headers as Record<string, string>)).toThrow();
  });

  it("keeps the first 200 characters of the answer, and null for an empty one", async () => {
    const long = await receiver((res) => res.writeHead(500).end("x".repeat(150) + "y".repeat(150)));
    expect(await send(target(long.url), job())).toMatchObject({ status: 500, error: null, excerpt: "x".repeat(150) + "y".repeat(50) });
    const empty = await receiver((res) => res.writeHead(200).end());
    expect(await send(target(empty.url), job())).toMatchObject({ status: 200, error: null, excerpt: null });
  });

  it("never follows a redirect: a 307 is the answer, and its Location receives nothing", async () => {
    const elsewhere = await receiver();
    const bouncer = await receiver((res) => res.writeHead(307, { location: elsewhere.url }).end());
    const result = await send(target(bouncer.url), job());
    expect(result).toMatchObject({ status: 307, error: null });
    expect(bouncer.received).toHaveLength(1);
    // The sentinel: a delivery sent straight to the second receiver arrives there first and alone.
    expect((await send(target(elsewhere.url), job())).status).toBe(200);
    expect(elsewhere.received).toHaveLength(1);
    for (const status of [301, 302, 303, 308]) {
      const other = await receiver((res) => res.writeHead(status, { location: elsewhere.url }).end());
      expect((await send(target(other.url), job())).status).toBe(status);
    }
    expect(elsewhere.received).toHaveLength(1);
  });

  it("a refused connection is no answer: status null, and why", async () => {
    const hook = await receiver();
    const url = hook.url;
    for (const server of servers.splice(0)) server.close();
    const result = await send(target(url), job());
    expect(result.status).toBeNull();
    expect(result.excerpt).toBeNull();
    expect(result.error).toMatch(/^could not connect: TypeError: fetch failed$/);
  });

  it("an answer cut off mid-body still counts as answered, with no excerpt", async () => {
    const hook = await receiver((res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("partial", () => res.destroy());
    });
    expect(await send(target(hook.url), job())).toMatchObject({ status: 200, error: null, excerpt: null });
  });

  it("says why there was no answer in at most 150 characters of the cause", async () => {
    // A URL fetch cannot parse: its error repeats the whole URL.
    const result = await send(target(`http://${"x".repeat(300)}:99999/`), job());
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/^could not connect: TypeError: /);
    expect(result.error).toHaveLength("could not connect: ".length + 150);
  });

  it("a receiver that never answers is given up after 10 s", async () => {
    const hook = await receiver(() => {
      // Reads the request and never answers.
    });
    const result = await send(target(hook.url), job());
    expect(hook.received).toHaveLength(1);
    expect(result).toMatchObject({ status: null, error: "timed out after 10 s", excerpt: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(9_900);
    expect(result.durationMs).toBeLessThan(12_000);
  }, 20_000);
});

describe("signingSecrets", () => {
  const at = Date.parse("2026-04-20T10:00:00.000Z");
  const rotated = (previousSecretExpiresAt: string | null, previousSecret: string | null = "whsec_old") =>
    target("https://example.com", "whsec_new", { previousSecret, previousSecretExpiresAt });

  it("the new secret first, then the old one, strictly before the overlap ends", () => {
    expect(signingSecrets(rotated("2026-04-20T10:00:00.001Z"), at)).toEqual(["whsec_new", "whsec_old"]);
    expect(signingSecrets(rotated("2026-04-20T10:00:00.000Z"), at)).toEqual(["whsec_new"]);
    expect(signingSecrets(rotated("2026-04-20T09:59:59.999Z"), at)).toEqual(["whsec_new"]);
  });

  it("the current secret alone for a webhook never rotated", () => {
    expect(signingSecrets(rotated(null, null), at)).toEqual(["whsec_new"]);
  });
});

describe("what an answer means", () => {
  it("succeeded: 2xx only", () => {
    for (const status of [200, 201, 204, 299]) expect(succeeded(answer({ status })), String(status)).toBe(true);
    for (const status of [null, 100, 199, 300, 307, 404, 410, 500]) expect(succeeded(answer({ status })), String(status)).toBe(false);
  });

  it("gone: 410 only", () => {
    expect(gone(answer({ status: 410 }))).toBe(true);
    for (const status of [null, 200, 404, 411, 409]) expect(gone(answer({ status }))).toBe(false);
  });

  it("retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h from the attempt's start, then none", () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    const failed = answer({ status: 500 });
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => nextRetryAt(job({ attempt }), failed))).toEqual(
      RETRY_DELAYS_MS.map((delay) => 1_000_000 + delay),
    );
    expect(nextRetryAt(job({ attempt: 8 }), failed)).toBeNull();
    expect(nextRetryAt(job({ attempt: 1 }), answer({ status: null, error: "timed out after 10 s" }))).toBe(1_005_000);
  });

  it("no retry after a success or a 410", () => {
    expect(nextRetryAt(job(), answer({ status: 200 }))).toBeNull();
    expect(nextRetryAt(job(), answer({ status: 410 }))).toBeNull();
  });
});

describe("reportOf", () => {
  it("a success", () => {
    const report = reportOf(job({ attempt: 2 }), answer({ status: 204, excerpt: "ok" }), null);
    expect(report).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      webhookId: "0190a5b2-0000-7000-8000-0000000000aa",
      eventId: EVENT.id,
      eventType: "task.updated",
      changeVersion: 7,
      attempt: 2,
      outcome: "succeeded",
      responseStatus: 204,
      durationMs: 12,
      error: null,
      responseExcerpt: "ok",
      nextRetryAt: null,
    });
    expect(reportOf(job(), answer({}), null).id).not.toBe(report.id);
  });

  it("a failure to be retried, and the last one", () => {
    expect(reportOf(job(), answer({ status: 503 }), 1_005_000)).toMatchObject({
      outcome: "retrying",
      error: "the receiver answered 503",
      nextRetryAt: new Date(1_005_000).toISOString(),
    });
    expect(reportOf(job({ attempt: 8 }), answer({ status: 503 }), null)).toMatchObject({
      outcome: "failed",
      error: "the receiver answered 503",
      nextRetryAt: null,
    });
  });

  it("no answer keeps its own reason; a 410 says the webhook is now disabled", () => {
    expect(reportOf(job(), answer({ status: null, error: "timed out after 10 s" }), 0)).toMatchObject({
      outcome: "retrying",
      responseStatus: null,
      error: "timed out after 10 s",
      nextRetryAt: new Date(0).toISOString(),
    });
    expect(reportOf(job(), answer({ status: 410 }), null)).toMatchObject({
      outcome: "failed",
      error: "the receiver answered 410 Gone; the webhook is now disabled",
    });
  });

  it("a test delivery (changeVersion 0) is logged without one", () => {
    expect(reportOf(job({ event: storedForm({ ...EVENT, changeVersion: 0 }) }), answer({}), null).changeVersion).toBeNull();
  });
});

describe("droppedReport", () => {
  it("a job the backlog had no room for: failed at its first attempt, no request made, saying why", () => {
    expect(droppedReport(job(), 10_000)).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      webhookId: "0190a5b2-0000-7000-8000-0000000000aa",
      eventId: EVENT.id,
      eventType: "task.updated",
      changeVersion: 7,
      attempt: 1,
      outcome: "failed",
      responseStatus: null,
      durationMs: null,
      error: "dropped: the webhook's backlog is full (10000 deliveries queued)",
      responseExcerpt: null,
      nextRetryAt: null,
    });
  });
});

describe("backlogLimitOf", () => {
  it("the room's WEBHOOK_BACKLOG_LIMIT when it is a positive integer, else the default", () => {
    expect(backlogLimitOf("2000")).toBe(2_000);
    expect(backlogLimitOf("1")).toBe(1);
    for (const setting of [undefined, "", "0", "-5", "1.5", "ten", "1e400"]) expect(backlogLimitOf(setting)).toBe(DEFAULT_BACKLOG_LIMIT);
    expect(DEFAULT_BACKLOG_LIMIT).toBe(10_000);
  });
});
