import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { sha256Hex } from "../../domain/crypto/hash.ts";
import { DomainError } from "../../domain/errors.ts";
import type { AppEnv } from "../env.ts";
import { jsonBodyProblem } from "../http/json-limits.ts";
import { refuse } from "./refuse.ts";

export const MAX_BODY_BYTES = 64 * 1024;

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

/** Reads at most `limit` bytes, as text; null when the body is longer. */
export async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string | null> {
  const bytes = await readBytesCapped(body, limit);
  return bytes && new TextDecoder().decode(bytes);
}

/** Reads at most `limit` bytes; null when the body is longer (cancelled there: the rest is never read). */
export async function readBytesCapped(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * A POST's Idempotency-Key, kept for the call with the fingerprint of its request (its path and
 * `request`: the exact body, or what an upload states of its file); the refusal of a malformed one.
 * Replays are kept per API key, per application grant, and per person in the organisation they act
 * for (a console's double click or retry, from any of their sessions: db/statements/engine/caller.ts
 * personCredential).
 */
export function takeIdempotencyKey(c: Context<AppEnv>, request: string): DomainError | null {
  const idempotencyKey = c.req.header("idempotency-key");
  if (idempotencyKey === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(idempotencyKey))
    return new DomainError("invalid_field", "Idempotency-Key must be 1 to 255 visible characters", { field: "Idempotency-Key" });
  c.set("idempotency", { key: idempotencyKey, requestHash: sha256Hex(`POST ${new URL(c.req.url).pathname}\n${request}`) });
  return null;
}

/**
 * The body checks that come before the schema: JSON content type (415), at most 64 KiB (413),
 * well-formed JSON (400 invalid_json), a JSON object within the depth and size limits holding only
 * well-formed text (400 invalid_field, functions/http/json-limits.ts). The parsed body is handed to the
 * validator through Hono's body cache. A POST's Idempotency-Key is fingerprinted here, over the
 * exact bytes received.
 */
export const jsonBodyUpTo = (limit: number) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) {
      return refuse(c, new DomainError("unsupported_media_type", "send the body as JSON with Content-Type: application/json"));
    }
    const tooLarge = () => new DomainError("payload_too_large", `the body must be at most ${limit} bytes`);
    const declared = c.req.header("content-length");
    if (Number(declared ?? 0) > limit) return refuse(c, tooLarge());
    // A declared length within the limit is all the runtime delivers: read it whole. Without one
    // (a chunked body), read no more than the limit.
    const text = declared !== undefined ? await c.req.raw.text() : await readCapped(c.req.raw.body, limit);
    if (text === null) return refuse(c, tooLarge());
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refuse(c, new DomainError("invalid_json", "the body is not valid JSON"));
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      return refuse(c, new DomainError("invalid_json", "the body must be a JSON object"));
    }
    const problem = jsonBodyProblem(body);
    if (problem) return refuse(c, problem);
    c.set("body", body);
    const keyProblem = c.req.method === "POST" ? takeIdempotencyKey(c, text) : null;
    if (keyProblem) return refuse(c, keyProblem);
    // Hono caches bodies as promises and derives json() from the cached text.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    await next();
  });

/**
 * For a POST that does not replay (it creates nothing to answer again: a realtime token, a test
 * delivery): an Idempotency-Key is refused rather than silently ignored, so a client never
 * believes a retry of it is safe.
 */
export const refuseIdempotencyKey = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("idempotency-key") !== undefined) {
    return refuse(
      c,
      new DomainError(
        "invalid_field",
        `Idempotency-Key: ${c.req.method} ${new URL(c.req.url).pathname} does not replay an answer; send the header on creates and batches only`,
        {
          field: "Idempotency-Key",
        },
      ),
    );
  }
  await next();
});

/** The body checks with the default limit, 64 KiB. */
export const jsonBody = jsonBodyUpTo(MAX_BODY_BYTES);
