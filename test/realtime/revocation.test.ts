import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { api, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { connectToRoom, realtimeHost, roundTrip, runSweep, upgradeStatus, useRoom } from "../helpers/realtime.ts";
import { patched } from "../helpers/resources.ts";

// Revocation reaches realtime (docs/api.md "Realtime"): a revoked key is cut off everywhere. Its sockets,
// and those opened with realtime tokens minted from it, are closed by the room with 4401 within
// 10 s of the revocation (the CLI tells the room at once; a room that was not told hears it from
// the Worker's sweep); a token minted from it no longer opens a socket.

useRoom();

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const REVOKED_CLOSE = 4401;
const WITHIN_MS = 10_000;

interface RawSocket {
  /** The `ready` message's changeVersion. */
  ready: Promise<number>;
  /**
   * When the room's close frame arrived (Date.now()): the socket turns CLOSING the moment it does,
   * since this client never closes first. The room sends nothing after it.
   */
  closing: Promise<number>;
  /** The close code and reason, once the closing handshake has ended (`partykit dev` holds the TCP connection about 10 s longer). */
  closed: Promise<{ code: number; reason: string }>;
}

/** A plain `ws` socket (no reconnecting), so the room's close code is seen as sent. */
function rawSocket(orgId: string, params: Record<string, string>): RawSocket {
  const ws = new WebSocket(`ws://${realtimeHost()}/parties/v1/${orgId}?${new URLSearchParams(params)}`);
  const ready = new Promise<number>((resolve, reject) => {
    ws.on("message", (data) => {
      const message = JSON.parse(String(data)) as { type?: string; changeVersion: number };
      if (message.type === "ready") resolve(message.changeVersion);
    });
    ws.once("error", reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })),
  );
  const closing = new Promise<number>((resolve) => {
    const poll = setInterval(() => {
      if (ws.readyState < WebSocket.CLOSING) return;
      clearInterval(poll);
      resolve(Date.now());
    }, 5);
  });
  return { ready, closing, closed };
}

/** Runs `opsroom key revoke` as an operator would, with the room's address in the environment. */
async function revokeWithCli(
  keyId: string,
): Promise<{ id: string; revoked: true; socketsClosed: boolean; webhooks: { id: string; url: string; enabled: boolean }[] }> {
  const { stdout } = await promisify(execFile)(process.execPath, ["cli/bin.js", "key", "revoke", keyId, "--json"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: inject("databaseUrl"),
      REALTIME_URL: inject("realtimeUrl"),
      REALTIME_SECRET: inject("realtimeSecret"),
    },
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

async function revokedAt(keyId: string): Promise<number> {
  const [row] = await query<{ ms: string }>("select extract(epoch from revoked_at) * 1000 as ms from api_keys where id = $1", [keyId]);
  return Number(row!.ms);
}

async function mintToken(key: string): Promise<string> {
  return expectSuccess(await api("/v1/realtime/tokens", { key, body: {} }), 201).data.token;
}

/** Fails unless `promise` settles within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  ]);
}

async function expectClosedByRevocation(socket: RawSocket, keyId: string, label: string) {
  const closingAt = await within(socket.closing, WITHIN_MS, `${label}: the room's close frame`);
  const ms = closingAt - (await revokedAt(keyId));
  console.log(`[revocation] ${label}: revoked -> the room's close frame (4401) in ${ms.toFixed(0)} ms`);
  expect(ms).toBeLessThan(WITHIN_MS);
  const close = await within(socket.closed, 30_000, `${label}: closing handshake`);
  expect(close.code).toBe(REVOKED_CLOSE);
  expect(close.reason).toMatch(/revoked/);
  return ms;
}

describe("revoking a key with the CLI closes its sockets within 10 s", () => {
  it(
    "a socket opened with the key, and one opened with a token minted from it, close with 4401; another key's socket stays",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      const doomed = await tenant.keyWith(["tasks.read", "webhooks.manage"]);
      // A webhook it registered keeps delivering (it belongs to the organisation): the revocation names it.
      const webhook = expectSuccess(
        await api("/v1/webhooks", { key: doomed.key, body: { url: "http://127.0.0.1:9/revoked-key-hook" } }),
        201,
      ).data;
      const byKey = rawSocket(tenant.org.id, { apiKey: doomed.key });
      const byToken = rawSocket(tenant.org.id, { token: await mintToken(doomed.key) });
      await Promise.all([byKey.ready, byToken.ready]);
      const bystander = await connectToRoom(tenant.org.id, { apiKey: tenant.key });

      const result = await revokeWithCli(doomed.id);
      expect(result).toEqual({
        id: doomed.id,
        revoked: true,
        socketsClosed: true,
        webhooks: [{ id: webhook.id, url: webhook.url, enabled: true }],
      });
      await Promise.all([
        expectClosedByRevocation(byKey, doomed.id, "CLI, socket opened with the key"),
        expectClosedByRevocation(byToken, doomed.id, "CLI, socket opened with a token of the key"),
      ]);

      // The other key's socket is open and still gets events: a write after the revocation arrives.
      const task = await tenant.insertTask();
      await patched(tenant.key, `/v1/tasks/${task.id}`, { status: "in_progress" });
      await bystander.waitFor((events) => events.some((e) => e.type === "task.updated" && e.data.id === task.id));
      await roundTrip(bystander);
    },
  );

  it("a token minted from a key later revoked opens no socket (401); one minted from a live key does", async () => {
    const tenant = await createTenant();
    const doomed = await tenant.keyWith(["tasks.read"]);
    const token = await mintToken(doomed.key);
    expect((await upgradeStatus(tenant.org.id, { token })).status).toBe(101);
    await revokeWithCli(doomed.id);
    const refused = await upgradeStatus(tenant.org.id, { token });
    expect(refused.status, refused.body).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ success: false, error: { code: "invalid_key" } });
    expect((await upgradeStatus(tenant.org.id, { token: await mintToken(tenant.key) })).status).toBe(101);
  });

  it(
    "revoking again is harmless: the same answer, the first revocation's time kept; an unknown id fails and revokes nothing",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant();
      const doomed = await tenant.keyWith(["tasks.read"]);
      const first = await revokeWithCli(doomed.id);
      const at = await revokedAt(doomed.id);
      expect(await revokeWithCli(doomed.id)).toEqual(first);
      expect(await revokedAt(doomed.id)).toBe(at);
      const live = await query("select id from api_keys where revoked_at is null and org_id = $1", [tenant.org.id]);
      await expect(revokeWithCli("00000000-0000-7000-8000-000000000000")).rejects.toThrow(/no API key with id/);
      expect(await query("select id from api_keys where revoked_at is null and org_id = $1", [tenant.org.id])).toEqual(live);
    },
  );
});

describe("a room that was not told hears it from the sweep", () => {
  it("a key revoked behind the room's back (straight in the database): the next sweep closes its socket", { timeout: 60_000 }, async () => {
    const tenant: Tenant = await createTenant();
    const doomed = await tenant.keyWith(["tasks.read"]);
    const socket = rawSocket(tenant.org.id, { apiKey: doomed.key });
    await socket.ready;
    await query("update api_keys set revoked_at = now() where id = $1", [doomed.id]);
    await runSweep();
    await expectClosedByRevocation(socket, doomed.id, "sweep");
  });
});

describe("credentials the room refuses before opening a socket", () => {
  it("a realtime token with an extra segment, with padding, or re-spelt is 401", async () => {
    const tenant = await createTenant();
    const token = await mintToken(tenant.key);
    const [payload, signature] = token.slice("rt_".length).split(".") as [string, string];
    const variants = [
      `${token}.extra`,
      `${token}.`,
      `rt_${payload}=.${signature}`,
      `rt_${payload}.${signature}=`,
      `rt_${payload}.${signature}==`,
      `rt_${payload}.${signature.replace(/-/g, "+").replace(/_/g, "/")}`,
    ];
    for (const variant of variants) {
      if (variant === token) continue;
      const refused = await upgradeStatus(tenant.org.id, { token: variant });
      expect(refused.status, `${variant}: ${refused.body}`).toBe(401);
    }
    expect((await upgradeStatus(tenant.org.id, { token })).status).toBe(101);
  });

  it("the main party opens no socket, with a credential or without (404)", async () => {
    const tenant = await createTenant();
    for (const query of [{}, { apiKey: tenant.key }] as Record<string, string>[]) {
      const url = `ws://${realtimeHost()}/parties/main/${tenant.org.id}?${new URLSearchParams(query)}`;
      const status = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(url);
        ws.once("open", () => {
          ws.close();
          resolve(101);
        });
        ws.once("unexpected-response", (request, response) => {
          request.destroy();
          resolve(response.statusCode ?? 0);
        });
        ws.once("error", reject);
      });
      expect(status).toBe(404);
    }
  });

  it("an apiKey with CR or LF in it is 401, not 503", async () => {
    const tenant = await createTenant();
    for (const apiKey of [`${tenant.key}\r\nX-Injected: 1`, `${tenant.key}\n`, `\r${tenant.key}`]) {
      const refused = await upgradeStatus(tenant.org.id, { apiKey });
      expect(refused.status, refused.body).toBe(401);
      expect(JSON.parse(refused.body)).toMatchObject({ success: false, error: { code: "invalid_key" } });
    }
  });
});
