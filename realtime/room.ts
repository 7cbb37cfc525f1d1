import type * as Party from "partykit/server";
import type { OpsEvent } from "../functions/lib/events.ts";
import { scopeOfEvent } from "../functions/lib/events.ts";
import { bearerToken, secretsEqual } from "../functions/lib/secrets.ts";
import { authenticate, type Identity, type RoomEnv } from "./identity.ts";

// The realtime room of one organisation (party "v1", room id = organisation id).
//
// The Worker publishes each committed event here (POST, shared secret). The room delivers events
// to sockets strictly in changeVersion order, each once: it remembers the last changeVersion it
// delivered (the watermark), drops anything at or below it (a repeated publish), and when an
// event arrives after a gap it fetches the missing ones from the API before going on. Sockets
// are tagged with the read scopes they hold, so a broadcast reaches exactly the sockets allowed
// to see the event.

const IDENTITY_HEADER = "x-opsroom-identity";
const WATERMARK_KEY = "watermark";
const PENDING_KEY = "pending";
const GAP_RETRY_MS = 5_000;

export default class OrganisationRoom implements Party.Server {
  // Idle rooms with many sockets cost nothing: the room sleeps between messages.
  readonly options: Party.ServerOptions = { hibernate: true };

  /** The last changeVersion delivered to sockets; null until known. */
  private watermark: number | null = null;
  /** Events that arrived ahead of a gap, by changeVersion; kept in storage too. */
  private pending = new Map<number, OpsEvent>();
  /** Publishes are handled one at a time, so the watermark never moves under a running one. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly room: Party.Room) {}

  private get env(): RoomEnv {
    return this.room.env as RoomEnv;
  }

  static async onBeforeConnect(request: Party.Request, lobby: Party.Lobby): Promise<Party.Request | Response> {
    const identity = await authenticate(new URL(request.url), lobby.id, lobby.env as RoomEnv);
    if (identity instanceof Response) return identity;
    // Set, not appended: a client cannot smuggle its own identity header through.
    request.headers.set(IDENTITY_HEADER, JSON.stringify(identity));
    return request;
  }

  async onStart(): Promise<void> {
    this.watermark = (await this.room.storage.get<number>(WATERMARK_KEY)) ?? null;
    const stored = (await this.room.storage.get<OpsEvent[]>(PENDING_KEY)) ?? [];
    this.pending = new Map(stored.map((event) => [event.changeVersion, event]));
    if (this.watermark === null) await this.learnStartingPoint().catch(() => {});
  }

  getConnectionTags(_connection: Party.Connection, context: Party.ConnectionContext): string[] {
    const identity = JSON.parse(context.request.headers.get(IDENTITY_HEADER) ?? "null") as Identity | null;
    // A socket with no readable scope still gets "ready"; a tag is required, so it gets a harmless one.
    return identity?.scopes.length ? identity.scopes : ["none"];
  }

  onConnect(connection: Party.Connection): void {
    connection.send(JSON.stringify({ type: "ready", changeVersion: this.watermark ?? 0 }));
  }

  onMessage(message: string | ArrayBuffer | ArrayBufferView, sender: Party.Connection): void {
    // Sockets only listen; a ping is answered so clients can measure liveness.
    if (message === "ping") sender.send("pong");
  }

  async onRequest(request: Party.Request): Promise<Response> {
    if (request.method !== "POST") return Response.json({ error: "method not allowed" }, { status: 405 });
    const secret = this.env.REALTIME_SECRET;
    if (!secret || !secretsEqual(bearerToken(request.headers.get("authorization")), secret)) {
      return Response.json({ error: "unauthorized" }, { status: 401 });
    }
    let events: OpsEvent[];
    try {
      events = ((await request.json()) as { events: OpsEvent[] }).events;
      if (!Array.isArray(events)) throw new Error("events must be an array");
    } catch {
      return Response.json({ error: "body must be { events: [...] }" }, { status: 400 });
    }
    const run = this.queue.then(() => this.accept(events));
    this.queue = run.catch(() => {});
    await run;
    return Response.json({ acknowledged: events.map((event) => event.changeVersion), watermark: this.watermark });
  }

  async onAlarm(): Promise<void> {
    const run = this.queue.then(() => this.accept([]));
    this.queue = run.catch(() => {});
    await run;
  }

  /** Takes published events in, delivers whatever is now in order, and keeps the rest durably. */
  private async accept(events: OpsEvent[]): Promise<void> {
    if (this.watermark === null) {
      await this.learnStartingPoint().catch(() => {
        // The API is unreachable: start just before the earliest event in hand.
        const first = Math.min(...events.map((e) => e.changeVersion));
        this.watermark = Number.isFinite(first) ? first - 1 : null;
      });
    }
    if (this.watermark === null) return;
    for (const event of events) if (event.changeVersion > this.watermark) this.pending.set(event.changeVersion, event);
    this.deliverInOrder();
    if (this.pending.size > 0) {
      // A gap: fetch what is missing from the API rather than waiting for the sweep.
      await this.fillGap().catch(() => {});
      this.deliverInOrder();
    }
    await this.room.storage.put({ [WATERMARK_KEY]: this.watermark, [PENDING_KEY]: [...this.pending.values()] });
    if (this.pending.size > 0) await this.room.storage.setAlarm(Date.now() + GAP_RETRY_MS);
  }

  private deliverInOrder(): void {
    for (let next = this.pending.get(this.watermark! + 1); next; next = this.pending.get(this.watermark! + 1)) {
      this.pending.delete(next.changeVersion);
      this.broadcast(next);
      this.watermark = next.changeVersion;
    }
    for (const changeVersion of this.pending.keys()) if (changeVersion <= this.watermark!) this.pending.delete(changeVersion);
  }

  private broadcast(event: OpsEvent): void {
    const scope = scopeOfEvent(event.type);
    if (!scope) return;
    const message = JSON.stringify(event);
    for (const connection of this.room.getConnections(scope)) connection.send(message);
  }

  private async callApi<T>(path: string): Promise<T> {
    const response = await fetch(`${this.env.API_URL ?? "http://127.0.0.1:8787"}/internal/rooms/${this.room.id}${path}`, {
      headers: { authorization: `Bearer ${this.env.REALTIME_SECRET ?? ""}` },
    });
    if (!response.ok) throw new Error(`API answered ${response.status}`);
    return (await response.json()) as T;
  }

  private async learnStartingPoint(): Promise<void> {
    const { watermark } = await this.callApi<{ watermark: number }>("/start");
    this.watermark = watermark;
  }

  private async fillGap(): Promise<void> {
    const { events } = await this.callApi<{ events: OpsEvent[] }>(`/events?after=${this.watermark}&limit=500`);
    for (const event of events) if (event.changeVersion > this.watermark!) this.pending.set(event.changeVersion, event);
  }
}
