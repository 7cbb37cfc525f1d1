import { SNIFF_BYTES, detectContentType } from "../domain/attachments.ts";
import { DomainError } from "../domain/errors.ts";

// The bytes of an upload on their way into R2 (docs/attachments.md): streamed, never held whole.
// Each chunk passes through once: its first bytes are kept to tell what the file is, every byte
// is hashed (SHA-256) and counted, and the stream must be exactly the size stated up front. R2
// checks the SHA-256 stated as well; a body that differs in either is refused and its object
// deleted, so nothing is kept. A multipart upload's parts pass the same check, each against its
// own length and SHA-256, and the assembled object is read back through it when it completes.

export interface StoredFile {
  contentType: string;
}

export const sizeDiffers = (size: number, got: number, what = "the body") =>
  new DomainError("invalid_field", `${what} is ${got > size ? "longer" : "shorter"} than the size stated (${size} bytes)`, {
    field: "size",
  });
export const shaDiffers = (what = "the body") =>
  new DomainError("invalid_field", `${what}'s SHA-256 is not the one stated`, { field: "sha256" });

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** What passed through a check: how many bytes, their SHA-256, and the first SNIFF_BYTES of them. */
export interface Checked {
  received: number;
  sha256: string;
  head: Uint8Array;
}

/**
 * `body` through a count, a SHA-256 and a look at its first bytes, into a stream of exactly `size`
 * bytes (R2 takes a stream of a known length only: FixedLengthStream says it, and errors if it
 * differs). `checked` settles once the whole body has passed; a body longer than `size` fails it.
 */
export function checkedStream(body: ReadableStream<Uint8Array>, size: number) {
  let head = new Uint8Array(0);
  let received = 0;
  let tooLong = false;
  // workerd's streaming digest (Node's types name another Crypto).
  const digest = new (crypto as unknown as { DigestStream: typeof DigestStream }).DigestStream("SHA-256");
  const digestWriter = digest.getWriter();
  const check = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > size) {
        tooLong = true;
        throw sizeDiffers(size, received);
      }
      if (head.length < SNIFF_BYTES) {
        const more = chunk.subarray(0, SNIFF_BYTES - head.length);
        const next = new Uint8Array(head.length + more.length);
        next.set(head);
        next.set(more, head.length);
        head = next;
      }
      await digestWriter.write(chunk);
      controller.enqueue(chunk);
    },
  });
  const fixed = new FixedLengthStream(size);
  const piped = body.pipeThrough(check).pipeTo(fixed.writable);
  piped.catch(() => {});
  let done: Promise<Checked> | null = null;
  const finish = async (): Promise<Checked> => {
    await piped;
    await digestWriter.close();
    return { received, sha256: hex(await digest.digest), head };
  };
  return {
    readable: fixed.readable,
    /** Once the body has passed whole: what passed. */
    checked: () => (done ??= finish()),
    /** How many bytes passed, and whether they went past `size`. */
    progress: () => ({ received, tooLong }),
  };
}

/** Reads `body` (of `size` bytes) through the check without keeping it: its SHA-256 and first bytes. */
export async function digestOf(body: ReadableStream<Uint8Array>, size: number): Promise<Checked> {
  const stream = checkedStream(body, size);
  const [, passed] = await Promise.all([stream.readable.pipeTo(new WritableStream()), stream.checked()]);
  return passed;
}

/** Streams `body` into `key`, checking it is `size` bytes with SHA-256 `sha256`; refused (and nothing kept) otherwise. */
export async function storeFile(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  stated: { size: number; sha256: string },
): Promise<StoredFile> {
  const stream = checkedStream(body, stated.size);
  try {
    const [, passed] = await Promise.all([bucket.put(key, stream.readable, { sha256: stated.sha256 }), stream.checked()]);
    if (passed.received !== stated.size) throw sizeDiffers(stated.size, passed.received);
    if (passed.sha256 !== stated.sha256) throw shaDiffers();
    return { contentType: detectContentType(passed.head) };
  } catch (error) {
    await bucket.delete(key).catch(() => {});
    throw refusalOf(error, stream.progress(), stated.size);
  }
}

/** What a failed stream into R2 is to the client: the check's own refusal, a size that differed, else a SHA-256 R2 refused. */
export function refusalOf(error: unknown, progress: { received: number; tooLong: boolean }, size: number, what = "the body"): unknown {
  if (error instanceof DomainError) return error;
  if (progress.tooLong || progress.received !== size) return sizeDiffers(size, progress.received, what);
  // R2 refuses a body whose SHA-256 is not the one stated (and keeps nothing).
  if (/sha-?256|checksum|digest/i.test(String(error))) return shaDiffers(what);
  return error;
}
