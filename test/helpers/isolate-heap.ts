import WebSocket from "ws";

// The Worker isolate's own memory, read through the V8 inspector wrangler exposes for it
// (`dev.inspector`, test/helpers/worker.ts), over the Chrome DevTools Protocol: `Runtime.getHeapUsage`
// answers the JavaScript heap in use and the ArrayBuffers' backing stores (where a body's chunks
// sit while they stream). workerd's process resident memory cannot say it: the same process runs
// wrangler's local R2 (bench/results/README.md "Files").

const MiB = 1024 * 1024;

export interface HeapUsage {
  /** The JavaScript heap in use, in bytes. */
  used: number;
  /** ArrayBuffers' backing stores, outside the heap, in bytes. */
  backing: number;
}

export interface IsolateHeap {
  /** The heap as V8 keeps it now, garbage included. */
  usage(): Promise<HeapUsage>;
  /** A full garbage collection (`HeapProfiler.collectGarbage`), then the usage: what the isolate holds. */
  collected(): Promise<HeapUsage>;
  /** Samples the usage every `everyMs` until `stop`, which answers the highest used + backing seen, in bytes. */
  sample(everyMs?: number): { stop(): Promise<{ peak: number; samples: number }> };
  close(): void;
}

/** used + backing, in MiB. */
export const mibOf = (usage: HeapUsage) => (usage.used + usage.backing) / MiB;

/** Connects to the inspector at `inspectorUrl` (its /json/list names the Worker's one target) of the Worker at `workerUrl`. */
export async function connectIsolate(inspectorUrl: string, workerUrl: string): Promise<IsolateHeap> {
  const base = new URL(inspectorUrl);
  base.protocol = "http:";
  const targets = (await (await fetch(new URL("/json/list", base))).json()) as { webSocketDebuggerUrl: string }[];
  if (targets.length !== 1) throw new Error(`the inspector at ${inspectorUrl} lists ${targets.length} targets, not the Worker alone`);
  const socket = await openSession(targets[0]!.webSocketDebuggerUrl);
  const pending = new Map<number, (result: unknown) => void>();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id === undefined) return;
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  let id = 0;
  const call = <T>(method: string, timeoutMs = 30_000) =>
    new Promise<T>((resolve, reject) => {
      const mine = ++id;
      const timer = setTimeout(
        () => reject(new Error(`the Worker's inspector did not answer ${method} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      pending.set(mine, (result) => (clearTimeout(timer), resolve(result as T)));
      socket.send(JSON.stringify({ id: mine, method }));
    });
  const usage = async (): Promise<HeapUsage> => {
    const result = await call<{ usedSize: number; backingStorageSize?: number }>("Runtime.getHeapUsage");
    if (result.backingStorageSize === undefined) throw new Error("this V8 does not report backingStorageSize");
    return { used: result.usedSize, backing: result.backingStorageSize };
  };
  return {
    usage,
    collected: async () => {
      // workerd runs the collection on the isolate's thread when the isolate next has something
      // to do: an idle one leaves it unanswered (seen: 30 s), so it is given cheap calls (GET /v1,
      // no key) until it answers.
      let answered = false;
      const collecting = call("HeapProfiler.collectGarbage").finally(() => (answered = true));
      while (!answered) {
        await fetch(new URL("/v1", workerUrl)).then((response) => response.arrayBuffer());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await collecting;
      return usage();
    },
    sample: (everyMs = 20) => {
      let peak = 0;
      let samples = 0;
      let running = true;
      const done = (async () => {
        while (running) {
          const { used, backing } = await usage();
          peak = Math.max(peak, used + backing);
          samples++;
          await new Promise((resolve) => setTimeout(resolve, everyMs));
        }
      })();
      return {
        stop: async () => {
          running = false;
          await done;
          return { peak, samples };
        },
      };
    },
    close: () => socket.close(),
  };
}

/**
 * A DevTools session on `url`. wrangler's inspector proxy keeps one at a time: it closes a second
 * one at once (1013, "only one can be connected at a time"), so test files that read the isolate
 * in parallel take turns: a refused one tries again until the other has closed (3 minutes at most).
 */
async function openSession(url: string): Promise<WebSocket> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const socket = new WebSocket(url);
    // Open, then a first command answered: the proxy closes a refused session right after opening it.
    const accepted = await new Promise<boolean>((resolve, reject) => {
      socket.once("error", reject);
      socket.once("close", () => resolve(false));
      socket.once("open", () => socket.send(JSON.stringify({ id: 0, method: "Runtime.getHeapUsage" })));
      socket.on("message", (data) => (JSON.parse(String(data)) as { id?: number }).id === 0 && resolve(true));
    });
    if (accepted) return socket;
    if (Date.now() > deadline) throw new Error(`the Worker's inspector at ${url} stayed busy with another session for 3 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
