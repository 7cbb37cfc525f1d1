import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../domain/errors.ts";
import type { AppEnv } from "../../functions/env.ts";
import { keysOrSession } from "../../functions/middleware/credentials.ts";
import { jsonBody } from "../../functions/middleware/json-body.ts";

// The Worker's two middlewares at the security edge, in Node, on a Hono app of their own: the
// Authorization header (bearer.ts) and the Idempotency-Key header (json-body.ts). Through the
// real Worker they are tested in test/api/requests.test.ts, test/helpers/refusals.ts and
// test/protection/idempotency.test.ts; here each rule of the headers, quickly.

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
function keyWith(body: string): string {
  let value = crc32(Buffer.from(body));
  let digits = "";
  for (let i = 0; i < 6; i++) {
    digits = ALPHABET[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return `ops_${body}${digits}`;
}
const KEY = keyWith("aZ09bY18cX27dW36eV45fU54gT63hS72");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A Hono app with `middleware`, answering what it left in the context, or the DomainError it threw. */
function appWith(middleware: typeof keysOrSession | typeof jsonBody, actor?: AppEnv["Variables"]["actor"]) {
  const app = new Hono<AppEnv>();
  if (actor) {
    app.use("*", async (c, next) => {
      c.set("actor", actor);
      await next();
    });
  }
  app.use("*", middleware);
  app.all("*", (c) => c.json({ actor: c.var.actor ?? null, idempotency: c.var.idempotency ?? null, body: c.var.body ?? null }));
  app.onError((error, c) => {
    if (!(error instanceof DomainError)) throw error;
    return c.json({ error: { code: error.code, message: error.message, ...error.details } }, 400);
  });
  return app;
}

describe("credentials: Authorization: Bearer", () => {
  const app = appWith(keysOrSession);
  // No AUTH_SECRET: keys only, as a Worker without people configured.
  const env = { DATABASE_URL: "postgres://unit@127.0.0.1/none", PUBLIC_ORIGIN: "https://api.example.com" };
  const call = async (authorization?: string) =>
    (await app.request("/v1/tasks", authorization === undefined ? {} : { headers: { authorization } }, env)).json() as Promise<any>;

  it("a well-formed key becomes the actor, known by its SHA-256", async () => {
    for (const header of [`Bearer ${KEY}`, `bearer ${KEY}`, `BEARER\t${KEY}`, `Bearer   ${KEY}  `]) {
      expect(await call(header), header).toEqual({ actor: { keyHash: sha256(KEY) }, idempotency: null, body: null });
    }
  });

  it("no header: unauthorized, saying how to send the key", async () => {
    expect((await call()).error).toEqual({ code: "unauthorized", message: "send your API key as Authorization: Bearer <key>, or sign in" });
    expect((await call("")).error.code).toBe("unauthorized");
  });

  it("another shape of header: unauthorized", async () => {
    for (const header of [
      KEY,
      `Basic ${KEY}`,
      "Bearer",
      "Bearer ",
      `Bearer${KEY}`,
      `Bearer ${KEY} extra`,
      `Token ${KEY}`,
      `xBearer ${KEY}`,
    ]) {
      expect((await call(header)).error, header).toEqual({
        code: "unauthorized",
        message: "the Authorization header must be: Bearer <key>",
      });
    }
  });

  it("a malformed key (shape or checksum): invalid_key, with no lookup", async () => {
    const wrongChecksum = `${KEY.slice(0, -1)}${KEY.endsWith("A") ? "B" : "A"}`;
    for (const key of ["not-a-key", wrongChecksum, KEY.slice(0, -1), `${KEY}0`]) {
      expect((await call(`Bearer ${key}`)).error, key).toEqual({ code: "invalid_key", message: "the API key is malformed" });
    }
  });
});

describe("json-body: Idempotency-Key", () => {
  const app = appWith(jsonBody);
  const post = async (key: string | undefined, options: { method?: string; path?: string; body?: string } = {}) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (key !== undefined) headers["idempotency-key"] = key;
    const response = await app.request(options.path ?? "/v1/tasks", {
      method: options.method ?? "POST",
      headers,
      body: options.body ?? '{"title":"x"}',
    });
    return response.json() as Promise<any>;
  };

  it("a POST's key is kept with the fingerprint of its method, path and exact body", async () => {
    const body = '{ "title" : "x",\n "b": 1 }';
    expect(await post("order-42", { body })).toEqual({
      actor: null,
      idempotency: { key: "order-42", requestHash: sha256(`POST /v1/tasks\n${body}`) },
      body: { title: "x", b: 1 },
    });
    // The path without its query string.
    expect((await post("k", { path: "/v1/projects?x=1" })).idempotency).toEqual({
      key: "k",
      requestHash: sha256('POST /v1/projects\n{"title":"x"}'),
    });
  });

  it("1 to 255 visible ASCII characters", async () => {
    for (const key of ["!", "~", "a", "x".repeat(255), "AZaz09-_.:/+=!~"]) expect((await post(key)).idempotency?.key, key).toBe(key);
  });

  it("anything else: invalid_field naming Idempotency-Key", async () => {
    for (const key of ["", "x".repeat(256), "a b", "a\tb", "é", "\x7f"]) {
      expect((await post(key)).error, JSON.stringify(key)).toEqual({
        code: "invalid_field",
        message: "Idempotency-Key must be 1 to 255 visible characters",
        field: "Idempotency-Key",
      });
    }
  });

  it("no key, or a key on anything but a POST: no idempotency", async () => {
    expect((await post(undefined)).idempotency).toBeNull();
    for (const method of ["PATCH", "PUT", "DELETE"]) {
      expect(await post("k", { method }), method).toEqual({ actor: null, idempotency: null, body: { title: "x" } });
      // Not even checked there.
      expect((await post("a b", { method })).idempotency, method).toBeNull();
    }
  });

  it("a person's POST (the session cookie) keeps its Idempotency-Key too: the console's creates replay, per person (issue 46)", async () => {
    const personal = appWith(jsonBody, { sessionToken: "session-token" });
    const response = await personal.request("/v1/tasks", {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "k" },
      body: '{"title":"x"}',
    });
    expect(await response.json()).toEqual({
      actor: { sessionToken: "session-token" },
      idempotency: { key: "k", requestHash: sha256('POST /v1/tasks\n{"title":"x"}') },
      body: { title: "x" },
    });
  });
});
