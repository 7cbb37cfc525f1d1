import { createMiddleware } from "hono/factory";
import { DomainError } from "../../domain/errors.ts";
import { ANSWER_BYTES } from "../../domain/limits.ts";
import type { AppEnv } from "../env.ts";

// What one isolate may hold of large answers at once (issue 45 row 3; docs/deployment.md "Limits").
// A Worker isolate has 128 MB, shared by every request it serves at once, and Cloudflare sends an
// isolate as many concurrent requests as it likes; open-source workerd has no heap limit at all.
// A read that answers up to ANSWER_BYTES (a list page, the feed, an audit export's page, a batch)
// holds that answer several times over while it is built: the statement's answer as text, its
// records parsed, the envelope serialised, its bytes. `npm run bench:memory` measures it (the app
// in Node under --max-old-space-size=128, bench/results/README.md "Memory"): at rest the isolate
// holds about 20 MB; one 4 MiB page took it to 32 MB and twelve at once to 42 MB (sampled peaks),
// with the heap never exhausted. Eight at once keep far inside 128 MB whatever Cloudflare sends.
//
// So each such request holds ANSWER_BYTES of the isolate's budget from before its statement until
// its answer is sent (a stream: until its last byte, or until the client goes away); a request
// that would take the isolate past LARGE_ANSWERS_AT_ONCE of them is answered 503 `unavailable` with
// Retry-After: 1 at once, and Cloudflare's next isolate or a moment later serves it. Reads of one
// record, writes and everything else hold nothing.

/** Large answers one isolate builds at once. */
export const LARGE_ANSWERS_AT_ONCE = 8;
/** Bytes of large answers one isolate may have in flight. */
let isolateAnswerBytes = LARGE_ANSWERS_AT_ONCE * ANSWER_BYTES;
let inFlight = 0;

/** `npm run bench:memory` measures an isolate without the bound too (Infinity); nothing else sets it. */
export function setLargeAnswersAtOnce(count: number): void {
  isolateAnswerBytes = count * ANSWER_BYTES;
}

/** Bytes of large answers this isolate has in flight now. */
export const answerBytesInFlight = () => inFlight;

/** Whether an operation's answer can reach ANSWER_BYTES: lists (records, history, the feed, logs), the export, a batch. */
export const answersLarge = (operationId: string) =>
  operationId.startsWith("list") || operationId === "exportAuditLog" || operationId === "runBatch";

export const answerBudget = createMiddleware<AppEnv>(async (c, next) => {
  if (inFlight + ANSWER_BYTES > isolateAnswerBytes)
    throw new DomainError("unavailable", "this instance is answering as much as it can hold; retry in a second");
  inFlight += ANSWER_BYTES;
  let held = true;
  const release = () => {
    if (held) inFlight -= ANSWER_BYTES;
    held = false;
  };
  try {
    await next();
  } catch (error) {
    release();
    throw error;
  }
  const body = c.res.body;
  // A streamed answer (the export) is built as it is sent: held until its end.
  if (!body || !c.res.headers.get("content-type")?.includes("ndjson")) return release();
  const counted = new TransformStream({ flush: release });
  void body.pipeTo(counted.writable).catch(release);
  c.res = new Response(counted.readable, c.res);
});
