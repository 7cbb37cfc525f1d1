import { SNIFF_BYTES, detectContentType } from "../domain/attachments.ts";
import { DomainError } from "../domain/errors.ts";

// The bytes of an upload on their way into R2 (docs/attachments.md): streamed, never held whole.
// Each chunk passes through once: its first bytes are kept to tell what the file is, every byte
// is hashed (SHA-256) and counted, and the stream must be exactly the size stated up front. R2
// checks the SHA-256 stated as well; a body that differs in either is refused and its object
// deleted, so nothing is kept.

export interface StoredFile {
  contentType: string;
}

const sizeDiffers = (size: number, got: number) =>
  new DomainError("invalid_field", `the body is ${got > size ? "longer" : "shorter"} than the size stated (${size} bytes)`, {
    field: "size",
  });
const shaDiffers = () => new DomainError("invalid_field", "the body's SHA-256 is not the one stated", { field: "sha256" });

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Streams `body` into `key`, checking it is `size` bytes with SHA-256 `sha256`; refused (and nothing kept) otherwise. */
export async function storeFile(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  stated: { size: number; sha256: string },
): Promise<StoredFile> {
  let head = new Uint8Array(0);
  let received = 0;
  // workerd's streaming digest (Node's types name another Crypto).
  const digest = new (crypto as unknown as { DigestStream: typeof DigestStream }).DigestStream("SHA-256");
  const digestWriter = digest.getWriter();
  let tooLong = false;
  const check = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > stated.size) {
        tooLong = true;
        throw sizeDiffers(stated.size, received);
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
  // R2 takes a stream of a known length only: FixedLengthStream says it, and errors if it differs.
  const fixed = new FixedLengthStream(stated.size);
  const piped = body.pipeThrough(check).pipeTo(fixed.writable);
  try {
    await Promise.all([bucket.put(key, fixed.readable, { sha256: stated.sha256 }), piped]);
    await digestWriter.close();
    const actual = hex(await digest.digest);
    if (received !== stated.size) throw sizeDiffers(stated.size, received);
    if (actual !== stated.sha256) throw shaDiffers();
    return { contentType: detectContentType(head) };
  } catch (error) {
    piped.catch(() => {});
    await bucket.delete(key).catch(() => {});
    if (error instanceof DomainError) throw error;
    if (tooLong || received !== stated.size) throw sizeDiffers(stated.size, received);
    // R2 refuses a body whose SHA-256 is not the one stated (and keeps nothing).
    if (/sha-?256|checksum|digest/i.test(String(error))) throw shaDiffers();
    throw error;
  }
}
