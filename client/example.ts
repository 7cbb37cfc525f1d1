import createClient from "openapi-fetch";
import PartySocket from "partysocket";
import WebSocket from "ws"; // Node 20 only: browsers and Node 22+ have a WebSocket of their own
import type { Event, paths } from "./schema.d.ts";

// Lists as the document says: one parameter, values joined by commas (?status=todo,blocked).
const api = createClient<paths>({ baseUrl: process.env.OPSROOM_URL ?? "http://127.0.0.1:8787", headers: { authorization: `Bearer ${process.env.OPSROOM_KEY}` }, querySerializer: { array: { style: "form", explode: false } } });

const { data: self } = await api.GET("/v1"); // the organisation, its changeVersion and where its room is
const { data: todo } = await api.GET("/v1/tasks", { params: { query: { status: ["todo", "blocked"], limit: 20 } } });
for (const task of todo?.data ?? []) console.log(task.dueDate, task.title);

let seen = self!.changeVersion, queue = Promise.resolve();
const room = new PartySocket({ host: new URL(self!.realtime.url).host, party: "v1", room: self!.organisation, query: { apiKey: process.env.OPSROOM_KEY }, WebSocket });
room.addEventListener("message", ({ data }) => (queue = queue.then(async () => {
  const message = JSON.parse(String(data)); // on every (re)connect, "ready": catch up on what was missed, then go live
  const events: Event[] = message.type === "ready" ? ((await api.GET("/v1/events", { params: { query: { after: seen, limit: 200 } } })).data?.data ?? []) : [message];
  for (const event of events.filter((e) => e.changeVersion > seen)) console.log(event.type, (seen = event.changeVersion), event.changes ?? "");
})));
