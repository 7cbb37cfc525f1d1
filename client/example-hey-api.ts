import PartySocket from "partysocket";
import WebSocket from "ws"; // Node 20 only: browsers and Node 22+ have a WebSocket of their own
import { client } from "./hey-api/client.gen.ts";
import { describeKey, listEvents, listTasks, type Event } from "./hey-api/index.ts";

// The README's client with the @hey-api/openapi-ts SDK: one function per operation; list
// parameters are serialised as the document says (?status=todo,blocked) without being told.
client.setConfig({ baseUrl: process.env.OPSROOM_URL ?? "http://127.0.0.1:8787", auth: () => process.env.OPSROOM_KEY });

const { data: self } = await describeKey(); // the organisation, its changeVersion and where its room is
const { data: todo } = await listTasks({ query: { status: ["todo", "blocked"], limit: 20 } });
for (const task of todo?.data ?? []) console.log(task.dueDate, task.title);

let seen = self!.changeVersion, queue = Promise.resolve();
const room = new PartySocket({ host: new URL(self!.realtime.url).host, party: "v1", room: self!.organisation, query: { apiKey: process.env.OPSROOM_KEY }, WebSocket });
room.addEventListener("message", ({ data }) => (queue = queue.then(async () => {
  const message = JSON.parse(String(data)); // on every (re)connect, "ready": catch up on what was missed, then go live
  const events: Event[] = message.type === "ready" ? ((await listEvents({ query: { after: seen, limit: 200 } })).data?.data ?? []) : [message];
  for (const event of events.filter((e) => e.changeVersion > seen)) console.log(event.type, (seen = event.changeVersion), event.changes ?? "");
})));
