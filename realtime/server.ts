import type * as Party from "partykit/server";

// The project's main party. Clients use the "v1" party (realtime/room.ts); this one only answers
// a health check, so a wrong URL gets a clear answer instead of an empty room, and opens no socket.
const NOT_HERE = "not found; rooms live at /parties/v1/<organisation id>";

export default class Main implements Party.Server {
  constructor(readonly room: Party.Room) {}

  static onBeforeConnect(): Response {
    return Response.json({ error: NOT_HERE }, { status: 404 });
  }

  static onFetch(request: Party.Request): Response {
    const path = new URL(request.url).pathname;
    if (path === "/" || path === "/health") return Response.json({ ok: true, parties: ["v1"] });
    return Response.json({ error: NOT_HERE }, { status: 404 });
  }

  onRequest(): Response {
    return Response.json({ error: NOT_HERE }, { status: 404 });
  }
}
