import type * as Party from "partykit/server";
import type { OpsEvent } from "../domain/events.ts";
import { bearerToken, secretsEqual } from "../domain/crypto/secrets.ts";
import { authenticate, internalUrl, type Identity, type RoomEnv } from "./identity.ts";
import { RoomMessageSchema } from "./protocol.ts";
import { Alarm, RETRY_MS } from "./room/alarm.ts";
import { Audiences, stateOf, tagsOf, type SocketState } from "./room/audiences.ts";
import { fanOut, fanOutKey, hasFanOut } from "./room/fan-out.ts";
import { orderedKey, writeAtomically } from "./storage.ts";
import { backlogLimitOf } from "./webhooks/backlog.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";

// The realtime room of one organisation (party "v1", room id = organisation id).
//
// The Worker publishes each committed event here (POST, shared secret). The room delivers events
// to sockets strictly in changeVersion order, each once: it remembers the last changeVersion it
// delivered (the watermark), drops anything at or below it (a repeated publish), and when an
// event arrives after a gap it fetches the missing ones from the API before going on. Sockets
// are tagged with the read scopes they hold, so a broadcast reaches exactly the sockets allowed
// to see the event, and each keeps the filter it connected with (types, projectId, recordId,
// excludeOwn), which narrows what it receives further.
//
// Events are kept in storage one key per event, never in one value: a burst of any size must fit
// (a value is capped at 128 KiB, a few hundred events).
//
// The path of one event is kept short (bench/README.md, "Fan-out"): it is serialised once, sent to
// the sockets grouped by what they may see and want (`audiences`, kept in memory between events),
// and only then written to storage, with writes that do not hold the sockets back; the publish is
// acknowledged once they are durable (`storage.sync()`), so an acknowledged event is never lost.
// Turning delivered events into webhook jobs runs in the alarm, beside later publishes.

const IDENTITY_HEADER = "x-opsroom-identity";
/** The identity onBeforeConnect passed on with the socket's request. */
const identityOf = (context: Party.ConnectionContext) => JSON.parse(context.request.headers.get(IDENTITY_HEADER) ?? "null") as Identity | null;

const WATERMARK_KEY = "watermark";
/** Events held behind a gap, `pending:<changeVersion>`; mirrored by `this.pending`. */
const PENDING_PREFIX = "pending:";
const ORG_KEY = "orgId";
/** Pages of missed events one attempt to fill a gap fetches at most. */
const GAP_PAGES_PER_ATTEMPT = 4;

export default class OrganisationRoom implements Party.Server {
  // Idle rooms with many sockets cost nothing: the room sleeps between messages.
  readonly options: Party.ServerOptions = { hibernate: true };

  /**
   * The organisation (the room id). PartyKit does not expose the room id to alarms, so it is kept
   * in storage the first time a request or socket arrives.
   */
  private orgId: string | null = null;
  /** The last changeVersion delivered to sockets; null until known. */
  private watermark: number | null = null;
  /** Events that arrived ahead of a gap, by changeVersion; kept in storage too (PENDING_PREFIX). */
  private pending = new Map<number, OpsEvent>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly alarm: Alarm;
  private readonly audiences: Audiences;
  private readonly webhooks: WebhookDispatcher;

  constructor(readonly room: Party.Room) {
    this.alarm = new Alarm(room.storage);
    this.audiences = new Audiences(room);
    this.webhooks = new WebhookDispatcher(room.storage, (path, init) => this.internalApi(path, init), backlogLimitOf(this.env.WEBHOOK_BACKLOG_LIMIT));
  }

  private get env(): RoomEnv {
    return this.room.env as RoomEnv;
  }

  static async onBeforeConnect(request: Party.Request, lobby: Party.Lobby): Promise<Party.Request | Response> {
    const identity = await authenticate(request as unknown as Request, lobby.id, lobby.env as RoomEnv);
    if (identity instanceof Response) return identity;
    // Set, not appended: a client cannot smuggle its own identity header through.
    request.headers.set(IDENTITY_HEADER, JSON.stringify(identity));
    return request;
  }

  async onStart(): Promise<void> {
    this.orgId = (await this.room.storage.get<string>(ORG_KEY)) ?? null;
    this.watermark = (await this.room.storage.get<number>(WATERMARK_KEY)) ?? null;
    const held = await this.room.storage.list<OpsEvent>({ prefix: PENDING_PREFIX });
    this.pending = new Map([...held.values()].map((event) => [event.changeVersion, event]));
    if (this.watermark === null && this.orgId) await this.learnStartingPoint().catch(() => {});
    // A room that wakes with work still queued (webhook retries, events held behind a gap, a
    // fan-out) arms itself again rather than leaving it until the next event.
    const queued = (await this.webhooks.nextDue()) !== null || (await hasFanOut(this.room.storage));
    if (queued || this.pending.size > 0) await this.alarm.ensureSet();
  }

  /** Called where the room id is readable (requests, sockets): keeps it for the alarm. */
  private async rememberOrg(): Promise<void> {
    if (this.orgId) return;
    this.orgId = this.room.id;
    await this.room.storage.put(ORG_KEY, this.orgId);
  }

  getConnectionTags(_connection: Party.Connection, context: Party.ConnectionContext): string[] {
    return tagsOf(identityOf(context));
  }

  async onConnect(connection: Party.Connection<SocketState>, context: Party.ConnectionContext): Promise<void> {
    connection.setState(stateOf(identityOf(context)));
    // PartyKit accepts the socket and calls this with no await between, so no event is broadcast
    // from an audience that lacks it.
    this.audiences.forget();
    await this.rememberOrg();
    // "ready" promises every event after its changeVersion, so a room new to the organisation asks
    // the API where it stands first (else it would say 0 and never send what came before its
    // first publish). Serially, so no publish moves the watermark meanwhile.
    await this.serially(async () => {
      if (this.watermark === null) await this.learnStartingPoint().catch(() => {});
      connection.send(JSON.stringify({ type: "ready", changeVersion: this.watermark ?? 0 }));
    });
  }

  onMessage(message: string | ArrayBuffer | ArrayBufferView, sender: Party.Connection): void {
    // Sockets only listen; a ping is answered so clients can measure liveness.
    if (message === "ping") sender.send("pong");
  }

  onClose(): void {
    this.audiences.forget();
  }

  onError(): void {
    this.audiences.forget();
  }

  async onRequest(request: Party.Request): Promise<Response> {
    if (request.method !== "POST") return Response.json({ error: "method not allowed" }, { status: 405 });
    const secret = this.env.REALTIME_SECRET;
    if (!secret || !secretsEqual(bearerToken(request.headers.get("authorization")), secret)) {
      return Response.json({ error: "unauthorized" }, { status: 401 });
    }
    await this.rememberOrg();
    const parsed = RoomMessageSchema.safeParse(await request.json().catch(() => null));
    if (!parsed.success) {
      return Response.json({ error: "body must be { events }, { webhooksChanged }, { deliver }, { replay }, { keysRevoked }, { sessionsEnded } or { membersChanged }" }, { status: 400 });
    }
    const message = parsed.data;
    if ("keysRevoked" in message) return Response.json({ closed: this.audiences.close("keysRevoked", message.keysRevoked) });
    if ("sessionsEnded" in message) return Response.json({ closed: this.audiences.close("sessionsEnded", message.sessionsEnded) });
    if ("membersChanged" in message) return Response.json({ closed: this.audiences.close("membersChanged", message.membersChanged) });
    if ("webhooksChanged" in message) {
      await this.webhooks.reload();
      return Response.json({ reloaded: true });
    }
    if ("deliver" in message || "replay" in message) {
      const { webhookId, events } = "deliver" in message ? { webhookId: message.deliver.webhookId, events: [message.deliver.event] } : message.replay;
      const answer = await this.webhooks.enqueueFor(webhookId, events);
      if (answer.queued) await this.alarm.wakeAt(Date.now());
      return Response.json(answer);
    }
    const events = message.events;
    const { watermark, kept } = await this.serially(() => this.accept(events));
    // Acknowledged (and so never published again by the sweep) only once the room has it durably.
    await kept;
    return Response.json({ acknowledged: events.map((event) => event.changeVersion), watermark });
  }

  async onAlarm(): Promise<void> {
    this.alarm.fired();
    // Events held behind a gap, or a room that could not learn where it stands: try again. In line
    // with publishes, so the watermark never moves under one.
    if (this.pending.size > 0 || this.watermark === null) await this.serially(async () => void (await (await this.accept([])).kept));
    // Beside publishes, not in line with them (room/fan-out.ts).
    const fannedOut = await fanOut(this.room.storage, this.webhooks);
    // A drain that fails (the webhooks cannot be loaded) is tried again in a while.
    const nextJob = await this.webhooks.drain().catch(() => Date.now() + RETRY_MS);
    // Events delivered while the webhooks were being called are fanned out right away (the alarm a
    // publish set meanwhile must not be pushed back); a gap, or webhooks that could not be loaded,
    // are tried again in a while.
    const fanoutLeft = await hasFanOut(this.room.storage);
    const now = Date.now();
    const next = [
      nextJob,
      fanoutLeft && fannedOut ? now : null,
      this.pending.size > 0 || (fanoutLeft && !fannedOut) ? now + RETRY_MS : null,
    ].filter((at): at is number => at !== null);
    if (next.length) await this.alarm.wakeAt(Math.min(...next));
  }

  /** Runs publishes, gap retries and new sockets' ready one at a time, so the watermark never moves under a running one. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Takes published events in, delivers whatever is now in order, and keeps the rest durably.
   * Answers the watermark and `kept`, which resolves once all of it is durable: the events go to
   * the sockets first, and the next publish need not wait for this one's storage.
   */
  private async accept(events: OpsEvent[]): Promise<{ watermark: number | null; kept: Promise<unknown> }> {
    if (this.watermark === null) {
      await this.learnStartingPoint().catch(() => {
        // The API is unreachable: start just before the earliest event in hand.
        const first = Math.min(...events.map((e) => e.changeVersion));
        this.watermark = Number.isFinite(first) ? first - 1 : null;
      });
    }
    if (this.watermark === null) return { watermark: null, kept: Promise.resolve() };
    const heldBefore = new Set(this.pending.keys());
    for (const event of events) if (event.changeVersion > this.watermark) this.pending.set(event.changeVersion, event);
    const delivered = this.deliverInOrder();
    if (this.pending.size > 0) {
      // A gap: fetch what is missing from the API rather than waiting for the sweep.
      await this.fillGap().catch(() => {});
      delivered.push(...this.deliverInOrder());
    }
    // The new watermark, the delivered events (for webhooks) and the events now held or released,
    // in one atomic batch, issued in delivery order: a room that restarts skips no event, and
    // repeats (to sockets, which drop a changeVersion they have seen) only what it had not kept.
    const put: Record<string, unknown> = { [WATERMARK_KEY]: this.watermark };
    for (const event of delivered) put[fanOutKey(event)] = event;
    for (const [changeVersion, event] of this.pending) if (!heldBefore.has(changeVersion)) put[orderedKey(PENDING_PREFIX, changeVersion)] = event;
    const released = [...heldBefore].filter((changeVersion) => !this.pending.has(changeVersion)).map((cv) => orderedKey(PENDING_PREFIX, cv));
    const written = writeAtomically(this.room.storage, { put, delete: released }, { unconfirmed: true });
    if (delivered.length > 0) await this.alarm.wakeAt(Date.now(), { unconfirmed: true });
    else if (this.pending.size > 0) await this.alarm.wakeAt(Date.now() + RETRY_MS, { unconfirmed: true });
    return { watermark: this.watermark, kept: written.then(() => this.room.storage.sync()) };
  }

  /** Sends every event that is next in line; answers them, in order. */
  private deliverInOrder(): OpsEvent[] {
    const delivered: OpsEvent[] = [];
    for (let next = this.pending.get(this.watermark! + 1); next; next = this.pending.get(this.watermark! + 1)) {
      this.pending.delete(next.changeVersion);
      this.audiences.broadcast(next);
      delivered.push(next);
      this.watermark = next.changeVersion;
    }
    for (const changeVersion of this.pending.keys()) if (changeVersion <= this.watermark!) this.pending.delete(changeVersion);
    return delivered;
  }

  /** The API's internal endpoints for this room, with the shared secret. */
  private async internalApi(path: string, init: RequestInit = {}): Promise<Response> {
    const url = internalUrl(this.env, this.orgId!, path);
    if (!url) throw new Error("API_URL is not set: the room cannot reach the API");
    return fetch(url, {
      ...init,
      headers: { authorization: `Bearer ${this.env.REALTIME_SECRET ?? ""}`, "content-type": "application/json" },
    });
  }

  private async callApi<T>(path: string): Promise<T> {
    const response = await this.internalApi(path);
    if (!response.ok) throw new Error(`API answered ${response.status}`);
    return (await response.json()) as T;
  }

  private async learnStartingPoint(): Promise<void> {
    const { watermark } = await this.callApi<{ watermark: number }>("/start");
    this.watermark = watermark;
  }

  private async fillGap(): Promise<void> {
    // A page stops at its count or its size (a few MiB), so a gap of large events takes several;
    // a few per attempt keep the room's memory bounded, and the next attempt goes on.
    const highestHeld = Math.max(...this.pending.keys());
    let after = this.watermark!;
    for (let page = 0; page < GAP_PAGES_PER_ATTEMPT && after + 1 < highestHeld; page++) {
      const { events } = await this.callApi<{ events: OpsEvent[] }>(`/events?after=${after}&limit=500`);
      for (const event of events) if (event.changeVersion > this.watermark!) this.pending.set(event.changeVersion, event);
      const last = events.at(-1);
      if (!last) return;
      after = last.changeVersion;
    }
  }
}
