import { createApp } from "../../functions/app.ts";
import { recordingFetch, replayCalls, replayEnv, runCall, type Answer } from "../lib/replay.ts";

// The app alone inside workerd (bench/app-in-workerd.ts runs it): the calls of bench/lib/replay.ts,
// recorded once for real through the SQL endpoint, then replayed `n` times within one request, so
// that the CPU workerd spends on that request, divided by `n`, is the app's own in the runtime
// that bills it: no incoming request, no subrequest, no response on the wire.
//
//   GET /record?call=<i>&key=…&task=…&project=…&person=…   records call i (its index in replayCalls)
//   GET /replay?call=<i>&n=<count>&…                        replays it n times

const tape = recordingFetch(globalThis.fetch.bind(globalThis));
globalThis.fetch = tape.fetch;
const app = createApp();
const tapes = new Map<number, Answer[]>();

export default {
  async fetch(request: Request, settings: Record<string, unknown>): Promise<Response> {
    const url = new URL(request.url);
    const q = (name: string) => url.searchParams.get(name) ?? "";
    const index = Number(q("call"));
    const call = replayCalls({ key: q("key"), taskId: q("task"), projectId: q("project"), personId: q("person") })[index];
    if (!call) return new Response(`no call ${index}`, { status: 400 });
    const env = replayEnv(settings);
    if (url.pathname === "/record") {
      // Twice, as the Node bench does: the first warms the code paths and the key's row.
      let status = 0;
      for (let attempt = 0; attempt < 2; attempt++) {
        tape.record();
        status = await runCall(app, env, call.request(attempt));
      }
      tapes.set(index, tape.replay());
      return Response.json({ call: call.name, status, answers: tapes.get(index)!.length });
    }
    const recorded = tapes.get(index);
    if (url.pathname !== "/replay" || !recorded) return new Response("record the call first", { status: 400 });
    tape.replay(recorded);
    const n = Number(q("n"));
    let status = 0;
    for (let i = 0; i < n; i++) {
      tape.rewind();
      status = await runCall(app, env, call.request(i));
    }
    return Response.json({ call: call.name, status, n });
  },
};
