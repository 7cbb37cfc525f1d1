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
// So each such request holds a share (ANSWER_BYTES) of the isolate's budget from before its
// statement until its answer is sent (a stream: until its last byte, or until the client goes
// away). A request that finds all LARGE_ANSWERS_AT_ONCE shares held waits for one, first come first
// served, holding no answer meanwhile; one that would wait more than WAIT_MS, or find WAITING_AT_MOST
// waiting already, is answered 503 `unavailable` with Retry-After: 1. Reads of one record, writes
// and everything else hold nothing.

/** Large answers one isolate builds at once. */
export const LARGE_ANSWERS_AT_ONCE = 8;
/** Requests that may wait for a share, and how long each may wait. */
export const WAITING_AT_MOST = 1_000;
export const WAIT_MS = 10_000;

let atOnce = LARGE_ANSWERS_AT_ONCE;
let held = 0;
const waiting: Array<() => void> = [];

/** `npm run bench:memory` measures an isolate without the bound too (Infinity); nothing else sets it. */
export function setLargeAnswersAtOnce(count: number): void {
  atOnce = count;
}

/** Bytes of large answers this isolate has in flight now, and the requests waiting for a share. */
export const answerBytesInFlight = () => held * ANSWER_BYTES;
export const waitingForShare = () => waiting.length;

const unavailable = () => new DomainError("unavailable", "this instance is answering as much as it can hold; retry in a second");

/** Takes a share: at once if one is free, else after those waiting before it; throws the 503 past the wait. */
async function takeShare(): Promise<void> {
  if (held < atOnce && waiting.length === 0) {
    held++;
    return;
  }
  if (waiting.length >= WAITING_AT_MOST) throw unavailable();
  await new Promise<void>((resolve, reject) => {
    const turn = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      waiting.splice(waiting.indexOf(turn), 1);
      reject(unavailable());
    }, WAIT_MS);
    waiting.push(turn);
  });
}

/** Gives a share back: to the first request waiting, or to the budget. */
function giveShare(): void {
  const next = waiting.shift();
  if (next) next();
  else held--;
}

/** Whether an operation's answer can reach ANSWER_BYTES: lists (records, history, the feed, logs), the export, a batch. */
export const answersLarge = (operationId: string) =>
  operationId.startsWith("list") || operationId === "exportAuditLog" || operationId === "runBatch";

export const answerBudget = createMiddleware<AppEnv>(async (c, next) => {
  await takeShare();
  let holding = true;
  const release = () => {
    if (holding) giveShare();
    holding = false;
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
