import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import { ErrorEnvelopeSchema } from "../../functions/http/error-schemas.ts";
import { AttachmentSchema } from "../../functions/schemas/attachments.ts";
import { answerWithin, testClientAddress, workerUrl, type ApiResponse } from "./api.ts";

// Uploading files to the Worker under test (docs/attachments.md): the body is the file's bytes,
// the query its name, size and SHA-256. api() sends JSON; these send bytes, and check the answer
// against the route's declared schemas as api() does.

export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export interface UploadOptions {
  name?: string;
  /** What the query states, if not the body's own. */
  size?: number;
  sha256?: string;
  headers?: Record<string, string>;
}

/** A PNG's signature, then random bytes: detected as image/png. */
export function pngBytes(length: number): Uint8Array {
  const bytes = randomBytes(length);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
}

export async function upload(
  key: string,
  path: string,
  body: Uint8Array | ReadableStream<Uint8Array>,
  options: UploadOptions & { length?: number } = {},
): Promise<ApiResponse> {
  const bytes = body instanceof Uint8Array ? body : null;
  const size = options.size ?? bytes?.byteLength ?? options.length!;
  const query = new URLSearchParams({ name: options.name ?? "file.bin", size: String(size), sha256: options.sha256 ?? sha256(bytes!) });
  const response = await fetch(new URL(`${path}?${query}`, workerUrl()), {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "text/plain",
      "cf-connecting-ip": testClientAddress(),
      ...options.headers,
    },
    body: body as BodyInit,
    // A stream body is sent chunked.
    ...(bytes ? {} : { duplex: "half" }),
    signal: answerWithin("POST", path),
  } as RequestInit);
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (response.status < 300) expect(AttachmentSchema.safeParse(parsed?.data).success, text.slice(0, 300)).toBe(true);
  else expect(ErrorEnvelopeSchema.safeParse(parsed).success, text.slice(0, 300)).toBe(true);
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Fetches a download link: status, headers and the bytes. */
export async function download(url: string): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const response = await fetch(url, { signal: answerWithin("GET", url) });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}
