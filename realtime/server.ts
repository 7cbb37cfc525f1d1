import type * as Party from "partykit/server";

// The project's main party. Clients use the "v1" party (realtime/room.ts); this one only answers
// a health check, so a wrong URL gets a clear answer instead of an empty room.
export default class Main implements Party.Server {
  constructor(readonly room: Party.Room) {}

  static onFetch(request: Party.Request): Response {
    const path = new URL(request.url).pathname;
    if (path === "/" || path === "/health") return Response.json({ ok: true, parties: ["v1"] });
    return Response.json({ error: "not found; rooms live at /parties/v1/<organisation id>" }, { status: 404 });
  }

  onRequest(): Response {
    return Response.json({ error: "not found; rooms live at /parties/v1/<organisation id>" }, { status: 404 });
  }
}
