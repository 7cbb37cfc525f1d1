/* eslint-disable max-lines -- one module under test, realtime/identity.ts, against one stand-in for the Worker; a describe per way to authenticate. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { signRealtimeToken, type RealtimeClaims } from "../../domain/crypto/realtime-token.ts";
import { ERROR_CODES } from "../../domain/errors.ts";
import { NO_FILTER } from "../../domain/event-filter.ts";
import { authenticate, internalUrl, type Identity, type RoomEnv } from "../../realtime/identity.ts";
import { tagsOf } from "../../realtime/room/audiences.ts";

// realtime/identity.ts, the room's check of a socket's credential, in Node against a stand-in
// for the Worker's POST /internal/rooms/:orgId/sockets: a node:http server that records what the
// room asked and answers what each test says. The real Worker answers it in
// test/protection/internal-endpoints.test.ts, and the real room in test/realtime/room.test.ts
// ("who may connect"). Here also what only a misconfigured or unreachable Worker shows.

const SECRET = "0123456789abcdef0123456789abcdef";
const ORG = "0190a5b2-0000-7000-8000-000000000001";
const OTHER_ORG = "0190a5b2-0000-7000-8000-000000000002";
const KEY_ID = "0190a5b2-0000-7000-8000-0000000000aa";

interface Asked {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

const servers: Array<{ close(): void; closeAllConnections(): void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A stand-in Worker answering every request with `respond`; `asked` lists what it was sent. */
async function worker(respond: (res: ServerResponse) => void) {
  const asked: Asked[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      asked.push({ method: req.method!, url: req.url!, headers: req.headers, body: JSON.parse(text) });
      respond(res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const env: RoomEnv = { API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, REALTIME_SECRET: SECRET };
  return { env, asked };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
const identityAnswer = (scopes: string[], orgId = ORG) => json(200, { orgId, keyId: KEY_ID, scopes });

function connect(
  query: Record<string, string>,
  orgId = ORG,
  headers: Record<string, string> = { "cf-connecting-ip": "2001:db8::7" },
): Request {
  return new Request(`http://127.0.0.1:1999/parties/v1/${orgId}?${new URLSearchParams(query)}`, { headers });
}

/** The refusal the room answers instead of opening the socket, checked whole. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function expectRefusal(result: Identity | Response, status: number, code: string): Promise<void> {
  expect(result).toBeInstanceOf(Response);
  const response = result as Response;
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; field?: string } };
  expect(body).toEqual({
    success: false,
    version: "v1",
    message: expect.stringMatching(/^[a-z].{10,}/),
    error: { code, requestId: expect.stringMatching(UUID), ...(body.error.field ? { field: body.error.field } : {}) },
  });
  expect(ERROR_CODES).toContain(body.error.code);
}

const claims = (overrides: Record<string, unknown> = {}) =>
  ({ orgId: ORG, keyId: KEY_ID, scopes: ["tasks.read"], exp: Math.floor(Date.now() / 1000) + 300, ...overrides }) as RealtimeClaims;

describe("internalUrl", () => {
  it("is the Worker's endpoint for the room, or null without API_URL", () => {
    expect(internalUrl({ API_URL: "https://api.example.com" }, ORG, "/sockets")).toBe(
      `https://api.example.com/internal/rooms/${ORG}/sockets`,
    );
    expect(internalUrl({}, ORG, "/sockets")).toBeNull();
    expect(internalUrl({ API_URL: "" }, ORG, "/sockets")).toBeNull();
  });
});

describe("authenticate with an API key", () => {
  it("asks the Worker, with the shared secret, whose key it is and from which address; answers its event read scopes", async () => {
    const { env, asked } = await worker(
      identityAnswer(["organisation.read", "tasks.read", "tasks.manage", "webhooks.read", "webhooks.manage"]),
    );
    const identity = await authenticate(connect({ apiKey: "ops_key" }), ORG, env);
    expect(identity).toEqual({ orgId: ORG, keyId: KEY_ID, scopes: ["organisation.read", "tasks.read"], filter: NO_FILTER });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      method: "POST",
      url: `/internal/rooms/${ORG}/sockets`,
      headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      body: { apiKey: "ops_key", clientAddress: "2001:db8::7" },
    });
  });

  it("a client with no address header is 'unknown'", async () => {
    const { env, asked } = await worker(identityAnswer(["tasks.read"]));
    await authenticate(connect({ apiKey: "ops_key" }, ORG, {}), ORG, env);
    expect(asked[0]!.body).toEqual({ apiKey: "ops_key", clientAddress: "unknown" });
  });

  it("the Worker's 401, 429 and 403 email_unverified are passed on as it gave them, body and headers", async () => {
    for (const [status, body, headers] of [
      [403, { success: false, version: "v1", message: "confirm your address", error: { code: "email_unverified", requestId: "r2" } }, {}],
      [
        401,
        { success: false, version: "v1", message: "revoked", error: { code: "invalid_key", requestId: "r1" } },
        { "www-authenticate": "Bearer" },
      ],
      [
        429,
        { success: false, version: "v1", message: "slow down", error: { code: "rate_limited", retryAfter: 17 } },
        { "retry-after": "17" },
      ],
    ] as const) {
      const { env } = await worker(json(status, body, headers));
      const result = await authenticate(connect({ apiKey: "ops_key" }), ORG, env);
      expect(result).toBeInstanceOf(Response);
      const response = result as Response;
      expect(response.status).toBe(status);
      for (const [name, value] of Object.entries(headers)) expect(response.headers.get(name)).toBe(value);
      expect(await response.json()).toEqual(body);
    }
  });

  it("any other answer of the Worker is 503 unavailable, never an open socket", async () => {
    const answers = [
      json(500, { error: "boom" }),
      json(403, { success: false }),
      json(404, { success: false }),
      json(400, { success: false }),
      (res: ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end("{not json"),
      json(200, { orgId: ORG, keyId: "not-a-uuid", scopes: [] }),
      json(200, { orgId: ORG, keyId: KEY_ID }),
      json(200, null),
    ];
    for (const answer of answers) {
      const { env } = await worker(answer);
      await expectRefusal(await authenticate(connect({ apiKey: "ops_key" }), ORG, env), 503, "unavailable");
    }
  });

  it("an unreachable Worker is 503 unavailable", async () => {
    const { env } = await worker(identityAnswer([]));
    for (const server of servers.splice(0)) server.close();
    await expectRefusal(await authenticate(connect({ apiKey: "ops_key" }), ORG, env), 503, "unavailable");
  });

  it("a key of another organisation is 404 not_found", async () => {
    const { env } = await worker(identityAnswer(["tasks.read"], OTHER_ORG));
    await expectRefusal(await authenticate(connect({ apiKey: "ops_key" }), ORG, env), 404, "not_found");
  });

  it("a room that cannot ask the Worker (no API_URL or no secret) is 503 unavailable, and asks nothing", async () => {
    const { env, asked } = await worker(identityAnswer(["tasks.read"]));
    await expectRefusal(await authenticate(connect({ apiKey: "ops_key" }), ORG, { API_URL: env.API_URL! }), 503, "unavailable");
    await expectRefusal(await authenticate(connect({ apiKey: "ops_key" }), ORG, { REALTIME_SECRET: SECRET }), 503, "unavailable");
    expect(asked).toHaveLength(0);
  });
});

describe("authenticate with a realtime token", () => {
  it("checks the signature here, asks the Worker whether its key is active, and keeps the token's scopes the key still holds", async () => {
    const { env, asked } = await worker(identityAnswer(["tasks.read", "risks.read", "webhooks.read"]));
    const token = await signRealtimeToken(SECRET, claims({ scopes: ["tasks.read", "projects.read", "webhooks.read"] }));
    const identity = await authenticate(connect({ token }), ORG, env);
    // projects.read: the key no longer holds it; webhooks.read: not an event scope.
    expect(identity).toEqual({ orgId: ORG, keyId: KEY_ID, scopes: ["tasks.read"], filter: NO_FILTER });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      headers: { authorization: `Bearer ${SECRET}` },
      body: { keyId: KEY_ID, clientAddress: "2001:db8::7" },
    });
  });

  it("a token is checked before an apiKey sent beside it", async () => {
    const { env, asked } = await worker(identityAnswer(["tasks.read"]));
    await expectRefusal(await authenticate(connect({ token: "rt_bad.token", apiKey: "ops_key" }), ORG, env), 401, "invalid_key");
    expect(asked).toHaveLength(0);
  });

  it("a bad, expired or foreign-signed token is 401 invalid_key, and the Worker is not asked", async () => {
    const { env, asked } = await worker(identityAnswer(["tasks.read"]));
    for (const token of [
      "rt_garbage.signature",
      await signRealtimeToken("another-secret-of-32-characters!", claims()),
      await signRealtimeToken(SECRET, claims({ exp: 1 })),
    ]) {
      await expectRefusal(await authenticate(connect({ token }), ORG, env), 401, "invalid_key");
    }
    // A room without the secret can check no token.
    await expectRefusal(
      await authenticate(connect({ token: await signRealtimeToken(SECRET, claims()) }), ORG, { API_URL: env.API_URL! }),
      401,
      "invalid_key",
    );
    expect(asked).toHaveLength(0);
  });

  it("a token for another organisation's room is 404 not_found, and the Worker is not asked", async () => {
    const { env, asked } = await worker(identityAnswer(["tasks.read"], OTHER_ORG));
    await expectRefusal(
      await authenticate(connect({ token: await signRealtimeToken(SECRET, claims({ orgId: OTHER_ORG })) }), ORG, env),
      404,
      "not_found",
    );
    expect(asked).toHaveLength(0);
  });

  it("a token whose key the Worker places in another organisation is 404 not_found", async () => {
    const { env } = await worker(identityAnswer(["tasks.read"], OTHER_ORG));
    await expectRefusal(await authenticate(connect({ token: await signRealtimeToken(SECRET, claims()) }), ORG, env), 404, "not_found");
  });

  it("the Worker's refusal of the token's key is passed on", async () => {
    const { env } = await worker(json(401, { success: false, version: "v1", message: "revoked", error: { code: "invalid_key" } }));
    const result = await authenticate(connect({ token: await signRealtimeToken(SECRET, claims()) }), ORG, env);
    expect((result as Response).status).toBe(401);
    expect(await (result as Response).json()).toMatchObject({ error: { code: "invalid_key" } });
  });
});

describe("authenticate with neither", () => {
  it("is 401 unauthorized, and asks nothing", async () => {
    const { env, asked } = await worker(identityAnswer(["tasks.read"]));
    const queries: Array<Record<string, string>> = [{}, { apiKey: "" }, { token: "" }, { key: "ops_key" }];
    for (const query of queries) {
      await expectRefusal(await authenticate(connect(query), ORG, env), 401, "unauthorized");
    }
    expect(asked).toHaveLength(0);
  });
});

describe("the filter of the connection query", () => {
  const PROJECT = "0190a5b2-0000-7000-8000-0000000000bb";

  it("is the socket's filter: types, projectId and recordId as given; excludeOwn names the key", async () => {
    const { env } = await worker(identityAnswer(["tasks.read", "projects.read"]));
    const identity = (await authenticate(
      connect({
        apiKey: "ops_key",
        types: "task.*, project.updated",
        projectId: PROJECT.toUpperCase(),
        recordId: PROJECT,
        excludeOwn: "true",
      }),
      ORG,
      env,
    )) as Identity;
    expect(identity.filter).toEqual({
      types: ["task.*", "project.updated"],
      projectId: PROJECT,
      recordId: PROJECT,
      excludeOwn: { keyId: KEY_ID },
    });
    const plain = (await authenticate(connect({ apiKey: "ops_key", excludeOwn: "false" }), ORG, env)) as Identity;
    expect(plain.filter).toEqual(NO_FILTER);
  });

  it("for a person's token, excludeOwn names the person, not the session", async () => {
    const USER = "0190a5b2-0000-7000-8000-0000000000cc";
    const SESSION = "0190a5b2-0000-7000-8000-0000000000dd";
    const { env } = await worker(json(200, { orgId: ORG, keyId: null, sessionId: SESSION, userId: USER, scopes: ["tasks.read"] }));
    const token = await signRealtimeToken(SECRET, claims({ keyId: undefined, sessionId: SESSION }));
    const identity = (await authenticate(connect({ token, excludeOwn: "true" }), ORG, env)) as Identity;
    expect(identity).toMatchObject({ keyId: null, sessionId: SESSION, userId: USER, filter: { excludeOwn: { userId: USER } } });
  });

  it("for an application's token: the Worker is asked about its grant; excludeOwn names the application; its socket is tagged with its grant, installation and person", async () => {
    const [GRANT, INSTALLATION, APP, USER] = ["ee", "ef", "f0", "f1"].map((end) => `0190a5b2-0000-7000-8000-0000000000${end}`);
    const answer = {
      orgId: ORG,
      keyId: null,
      grantId: GRANT,
      installationId: INSTALLATION,
      appId: APP,
      userId: USER,
      scopes: ["tasks.read", "projects.read"],
    };
    const { env, asked } = await worker(json(200, answer));
    const token = await signRealtimeToken(SECRET, claims({ keyId: undefined, grantId: GRANT }));
    const identity = (await authenticate(connect({ token, excludeOwn: "true" }), ORG, env)) as Identity;
    expect(asked.map((a) => a.body)).toEqual([{ grantId: GRANT, clientAddress: "2001:db8::7" }]);
    // The token's scopes, within what the grant holds now.
    expect(identity).toEqual({ ...answer, scopes: ["tasks.read"], filter: { ...NO_FILTER, excludeOwn: { appId: APP } } });
    expect(tagsOf(identity)).toEqual([`user:${USER}`, `installation:${INSTALLATION}`, `grant:${GRANT}`]);
  });

  it("a malformed parameter is 400 invalid_field naming it, after the credential was accepted", async () => {
    const { env, asked } = await worker(identityAnswer(["tasks.read"]));
    const cases: Array<[Record<string, string>, string]> = [
      [{ types: "task.*,nope" }, "types"],
      [{ types: "task.created.now" }, "types"],
      [{ types: "task.*," }, "types"],
      [{ types: "" }, "types"],
      [{ projectId: "x" }, "projectId"],
      [{ recordId: `${PROJECT}0` }, "recordId"],
      [{ excludeOwn: "1" }, "excludeOwn"],
    ];
    for (const [query, field] of cases) {
      const result = await authenticate(connect({ apiKey: "ops_key", ...query }), ORG, env);
      expect((result as Response).status, JSON.stringify(query)).toBe(400);
      expect(await (result as Response).json()).toEqual({
        success: false,
        version: "v1",
        message: expect.stringContaining(field),
        error: { code: "invalid_field", field, requestId: expect.stringMatching(UUID) },
      });
    }
    expect(asked).toHaveLength(cases.length);
  });
});
